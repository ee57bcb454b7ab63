//! One rejection test per decoder rule (WIRE.md §2, §5, §7, §8): each breaks exactly one rule of
//! an otherwise valid message and checks the error names the right rule, structure and field.
//! One test binary; a module per part of the spec, the shared helpers here.

#[path = "../common/mod.rs"]
mod common;

mod canonical;
mod check_order;
mod check_order_steps;
mod check_order_xattr;
mod decisions;
mod derived;
mod framing;
mod framing_walk;
mod independent;
mod limits;
mod lustre;
mod name;
mod reply;
mod request;
mod rule_coverage;
mod spec_readings;
mod spec_tables;

use common::*;
use lustre_dne_intent::intent::*;
use lustre_dne_intent::limits::*;
use lustre_dne_intent::wire::*;
use lustre_dne_intent::{DecodeError, EncodeError, Endian, ErrorKind};

fn req_err(p: &ReqParts) -> DecodeError {
    RequestView::parse(&p.encode()).expect_err("the request must be rejected")
}

fn rep_err(p: &RepParts) -> DecodeError {
    ReplyView::parse(&p.encode()).expect_err("the reply must be rejected")
}

fn rep_err_for(p: &RepParts) -> DecodeError {
    let ctx = mkdir_request().reply_context().expect("valid request");
    let bytes = p.encode();
    ReplyView::parse(&bytes).expect("valid without the request");
    ReplyView::parse_for(&bytes, &ctx).expect_err("the reply must be rejected against its request")
}

/// `mkdir_reply()` changed by `f`, through the value encoder (which must refuse what decoders
/// refuse).
fn mkdir_reply_with(f: impl FnOnce(&mut PrepareReply)) -> Result<bytes::Bytes, EncodeError> {
    let mut r = mkdir_reply();
    f(&mut r);
    r.to_bytes(Endian::Little)
}

/// `mkdir_request()` changed by `f`, through the value encoder.
fn mkdir_request_with(f: impl FnOnce(&mut PrepareRequest)) -> Result<bytes::Bytes, EncodeError> {
    let mut r = mkdir_request();
    f(&mut r);
    r.to_bytes(Endian::Little)
}

fn at(e: &DecodeError, structure: &str, field: &str) {
    assert_eq!(
        (e.at.structure, e.at.field),
        (structure, field),
        "wrong location in: {e}"
    );
}

#[test]
fn baselines_are_valid() {
    let req = ReqParts::mkdir().encode();
    let view = RequestView::parse(&req).expect("valid request");
    let ctx = view.reply_context();
    ReplyView::parse_for(&RepParts::mkdir().encode(), &ctx).expect("valid reply");
    let mut be = ReqParts::mkdir();
    be.order = Endian::Big;
    assert_eq!(
        RequestView::parse(&be.encode())
            .expect("big-endian")
            .order(),
        Endian::Big
    );
}

fn body(p: &mut RepParts) -> &mut MdCreatePrepareRep {
    p.body.as_mut().expect("the mkdir reply has a body")
}
