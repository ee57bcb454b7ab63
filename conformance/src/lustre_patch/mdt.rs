//! The first use of the protocol, the design's own first steps: an MDT connecting to a peer MDT
//! asks for `OBD_CONNECT2_DNE_PREPARE`, an MDT grants it (`MDT_CONNECT_SUPPORTED2`), and
//! `mdt_intent_opc()` answers the three prepare intents with the lock and the empty result,
//! the fallback every requester must handle (WIRE.md W7.2, MODEL.md). No requester is written
//! yet: `osp_md_object_lock()` still sends a plain enqueue.

use lustre_dne_intent::intent::Operation;

use super::base::{Edit, Source};
use super::connect::NAME as FLAG;
use super::uapi::IDL;
use super::{Draft, PatchError};

const LOD_LOV: &str = "lustre/lod/lod_lov.c";
const MDT_HANDLER: &str = "lustre/mdt/mdt_handler.c";
/// The request format the series declares for the prepare intents (patch 2).
const RQF: &str = "RQF_LDLM_INTENT_DNE_PREPARE";
/// The handler's name, beside `mdt_intent_getxattr()` and the others.
const HANDLER: &str = "mdt_intent_dne_prepare";

/// `MDT_CONNECT_SUPPORTED2` grants the flag: its last line loses the `)` and the flag follows.
fn supported2(src: &Source) -> Result<super::base::FileDiff, PatchError> {
    let idl = src.file(IDL)?;
    let start = idl.find("the MDT_CONNECT_SUPPORTED2 define", |l| {
        l.starts_with("#define MDT_CONNECT_SUPPORTED2 ")
    })?;
    let mut last = start;
    while idl.line(last)?.trim_end().ends_with('\\') {
        last += 1;
    }
    let end = idl.line(last)?;
    let body = end.trim_end().strip_suffix(')').ok_or(PatchError::Anchor {
        path: IDL.into(),
        what: "the end of MDT_CONNECT_SUPPORTED2".into(),
        why: format!("its last line {end:?} does not end with ')'"),
    })?;
    let indent: String = end.chars().take_while(|c| c.is_whitespace()).collect();
    idl.diff_and_apply(&mut [Edit {
        at: last,
        delete: 1,
        insert: vec![format!("{body} | \\"), format!("{indent}{FLAG})")],
    }])
}

/// The MDT-to-MDT connect data of `lod_add_device()` asks for the flag. It already sets
/// `OBD_CONNECT_FLAGS2` for every target, so `ocd_connect_flags2` is read by the peer.
fn lod_connect(src: &Source) -> Result<super::base::FileDiff, PatchError> {
    let f = src.file(LOD_LOV)?;
    f.find_line("\tdata->ocd_connect_flags = OBD_CONNECT_INDEX | OBD_CONNECT_VERSION |")?;
    f.find_line("\t\t\t\t  OBD_CONNECT_FLAGS2;")?;
    let mdt = f.find_line("\t\tdata->ocd_ibits_known = MDS_INODELOCK_UPDATE;")?;
    let end = f.find_after(mdt, "the end of the MDT connect flags", |l| {
        l.trim_end().ends_with("OBD_CONNECT_BULK_MBITS;")
    })?;
    f.diff_and_apply(&mut [Edit::insert_after(
        end,
        vec![
            "\t\t/* the peer MDT may answer DNE prepare intents */".into(),
            format!("\t\tdata->ocd_connect_flags2 = {FLAG};"),
        ],
    )])
}

/// The handler: a peer MDT only (MODEL.md §1, -EPERM), the request checked in host order
/// (`lustre_dne_prepare_req_check()` once the capsule has swabbed every buffer), then the lock
/// as requested, the empty result (no `md_create_prepare_rep`, every result buffer empty),
/// `DISP_IT_EXECD` (the intent ran, WIRE.md §7) and `lock_policy_res2` 0.
fn handler() -> Vec<String> {
    let text = format!(
        "/*
 * IT_DNE_*_PREPARE: check the request, grant the lock as requested and answer
 * with the empty result (no md_create_prepare_rep, no results), on which the
 * requester falls back to its ordinary reads under the lock. A request from
 * anything but a peer MDT, or one that breaks a rule of the protocol, fails
 * the enqueue, and the requester enqueues again without the intent.
 */
static int {HANDLER}(enum ldlm_intent_flags it_opc,
\t\t\t\t  struct mdt_thread_info *info,
\t\t\t\t  struct ldlm_lock **lockp, u64 flags)
{{
\tstatic const __u32 no_results[MLI_BUF_NR];
\tstruct req_capsule *pill = info->mti_pill;
\tstruct ptlrpc_request *req = mdt_info_req(info);
\tstruct ldlm_reply *rep;
\tconst char *rule = NULL;
\tint rc;

\tENTRY;

\tif (!(exp_connect_flags(req->rq_export) & OBD_CONNECT_MDS_MDS))
\t\tRETURN(-EPERM);

\t/*
\t * The capsule swabs each buffer it hands out: with the body and the
\t * groups taken, the whole request is in host order (the name is a
\t * string), which the check reads as a request of this host.
\t */
\tif (!req_capsule_client_get(pill, &RMF_MD_CREATE_PREPARE_REQ) ||
\t    (req_capsule_get_size(pill, &RMF_DNE_PREPARE_GROUPS, RCL_CLIENT) &&
\t     !req_capsule_client_get(pill, &RMF_DNE_PREPARE_GROUPS)))
\t\tRETURN(-EPROTO);
\trc = lustre_dne_prepare_req_check(req->rq_reqmsg, req->rq_reqlen,
\t\t\t\t\t  &rule);
\tif (rc) {{
\t\tCDEBUG(D_RPCTRACE, \"%s: DNE prepare %s refused by %s: rc = %d\\n\",
\t\t       mdt_obd_name(info->mti_mdt), ldlm_it2str(it_opc),
\t\t       rule ? rule : \"?\", rc);
\t\tRETURN(rc);
\t}}

\treq_capsule_set_size(pill, &RMF_MD_CREATE_PREPARE_REP, RCL_SERVER, 0);
\trc = req_capsule_dne_prepare_size(pill, no_results);
\tif (rc == 0)
\t\trc = req_capsule_server_pack(pill);
\tif (rc)
\t\tRETURN(err_serious(rc));

\trep = req_capsule_server_get(pill, &RMF_DLM_REP);
\tmdt_set_disposition(info, rep, DISP_IT_EXECD);
\trep->lock_policy_res2 = 0;

\tRETURN(ELDLM_OK);
}}
"
    );
    text.lines().map(str::to_string).collect()
}

/// `mdt_intent_opc()` routes the prepare intents to the handler, before the quota intents.
fn mdt_intents(src: &Source) -> Result<super::base::FileDiff, PatchError> {
    let f = src.file(MDT_HANDLER)?;
    let opc = f.find_line("static int mdt_intent_opc(enum ldlm_intent_flags it_opc,")?;
    let quota = f.find_after(opc, "the quota intents of mdt_intent_opc()", |l| {
        l == "\tcase IT_QUOTA_DQACQ:"
    })?;
    let mut cases: Vec<String> = Operation::ALL
        .iter()
        .map(|op| format!("\tcase {}:", op.opc_name()))
        .collect();
    cases.push(format!("\t\tit_format = &{RQF};"));
    cases.push(format!("\t\tit_handler = &{HANDLER};"));
    cases.push("\t\tbreak;".into());
    let mut fn_lines = handler();
    fn_lines.push(String::new());
    f.diff_and_apply(&mut [
        Edit::insert_before(opc, fn_lines),
        Edit::insert_before(quota, cases),
    ])
}

pub(crate) fn draft(src: &Source) -> Result<Draft, PatchError> {
    let mut diffs = vec![supported2(src)?, lod_connect(src)?, mdt_intents(src)?];
    diffs.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Draft {
        summary: "mdt: grant DNE prepare intents with the empty result".into(),
        body: vec![
            format!(
                "Ask for {FLAG} in the connect data an MDT sends to a peer MDT \
                 (lod_add_device()), and grant it in MDT_CONNECT_SUPPORTED2."
            ),
            format!(
                "Route IT_DNE_CREATE_PREPARE, IT_DNE_RENAME_PREPARE and \
                 IT_DNE_UNLINK_PREPARE in mdt_intent_opc() to {HANDLER}(). It \
                 fails the enqueue of anything but a peer MDT (-EPERM) and of a \
                 request that lustre_dne_prepare_req_check() refuses, which it runs \
                 once the capsule has swabbed the body and the groups, so that the \
                 request reads in host order. Otherwise it \
                 grants the lock as requested and answers with the empty result: \
                 no md_create_prepare_rep and no results, DISP_IT_EXECD in \
                 lock_policy_res1, lock_policy_res2 0. The \
                 requester then falls back to its ordinary reads under the lock, \
                 which it must always be able to do. Until now these intents \
                 failed the whole enqueue with -EPROTO."
            ),
            "The requester (osp_md_object_lock() attaching an intent when the \
             peer granted the flag) and the handler's answers follow in \
             separate patches."
                .into(),
        ],
        test_parameters: Some("mdtcount=4 mdscount=2 testlist=sanity,sanityn".into()),
        diffs,
    })
}
