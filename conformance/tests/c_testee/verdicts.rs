//! The crate's verdict on each case: what the testee's answer is compared with.

use super::*;

pub(crate) fn expect_request(bytes: &[u8]) -> Verdict {
    match RequestView::parse(bytes) {
        Ok(v) => Verdict::Valid(v.to_value().to_bytes(Endian::Little).unwrap().to_vec()),
        Err(e) => Verdict::Invalid(e.rule().to_string()),
    }
}

pub(crate) fn reply_context(request: &[u8]) -> Option<ReplyContext> {
    RequestView::parse(request).ok().map(|r| r.reply_context())
}

pub(crate) fn expect_reply(bytes: &[u8], request: &[u8]) -> Verdict {
    let Some(ctx) = reply_context(request) else {
        return Verdict::Unsupported;
    };
    match ReplyView::parse_for(bytes, &ctx) {
        Ok(v) => Verdict::Valid(v.to_value().to_bytes(Endian::Little).unwrap().to_vec()),
        Err(e) => Verdict::Invalid(e.rule().to_string()),
    }
}

pub(crate) fn expect_xattr(name: &str, bytes: &[u8]) -> Verdict {
    let canonical = match name {
        "system.posix_acl_access" | "system.posix_acl_default" => {
            AclView::parse(bytes).map(|v| v.to_value().to_bytes().unwrap())
        }
        "trusted.pin" | "lustre.pin" => {
            PinView::parse(bytes).map(|v| v.to_value().to_bytes().unwrap())
        }
        "trusted.lmv" | "lustre.lmv" => {
            LmvView::parse(bytes).map(|v| v.to_value().to_bytes().unwrap())
        }
        "trusted.dmv" | "lustre.dmv" => {
            DefaultLmvView::parse(bytes).map(|v| v.to_value().to_bytes().unwrap())
        }
        "trusted.lov" | "lustre.lov" => {
            LovView::parse(bytes).map(|v| v.to_value().to_bytes().unwrap())
        }
        _ => return Verdict::Unsupported,
    };
    match canonical {
        Ok(b) => Verdict::Valid(b.to_vec()),
        Err(e) => Verdict::Invalid(e.rule().to_string()),
    }
}

pub(crate) fn expect(case: &Case) -> Verdict {
    match &case.kind {
        Kind::Request => expect_request(&case.bytes),
        Kind::Reply(req) => expect_reply(&case.bytes, req),
        Kind::Xattr(name) => expect_xattr(name, &case.bytes),
    }
}
