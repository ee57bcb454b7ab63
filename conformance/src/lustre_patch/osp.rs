//! The OSP's half of the requester (patch 5, with [`super::requester`]): the prepare intent
//! packed on the enqueue of a remote name lock when the peer granted the flag, and its reply
//! checked before any result could be used. No result is used yet (MODEL.md §3: a reply the
//! requester cannot use leaves the standard reads); a failed intent enqueue is sent again
//! without the intent.

use super::PatchError;
use super::base::{Edit, FileDiff, Source};

const OSP_INTERNAL: &str = "lustre/osp/osp_internal.h";
const OSP_MD_OBJECT: &str = "lustre/osp/osp_md_object.c";

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

/// The packing and the reply's check, before `osp_md_object_lock()`. The limits are the
/// reference model's (`model/src/operation`): one `mdt_body` for PATTR, 4096 bytes for each
/// xattr result, PATTR alone in object mode.
const HELPERS: &str = "/* bytes accepted for each xattr result, as the reference model asks */
#define OSP_DNE_PREPARE_XATTR_LIMIT\t4096

/*
 * The enqueue of @res_id with the DNE prepare intent @dp (LU-20808):
 * RQF_LDLM_INTENT_DNE_PREPARE with the name (none in object mode) and the
 * groups, and a reply buffer that holds every result at its limit.
 */
static struct ptlrpc_request *
osp_dne_prepare_pack(struct osp_device *osp, const struct ldlm_res_id *res_id,
\t\t     const struct ldlm_dne_prepare *dp)
{
\tstruct md_create_prepare_req *body;
\tstruct ptlrpc_request *req;
\tstruct req_capsule *pill;
\tstruct ldlm_intent *lit;
\tint rc, i;

\treq = ptlrpc_request_alloc(class_exp2cliimp(osp->opd_exp),
\t\t\t\t   &RQF_LDLM_INTENT_DNE_PREPARE);
\tif (!req)
\t\treturn ERR_PTR(-ENOMEM);
\tpill = &req->rq_pill;
\treq_capsule_set_size(pill, &RMF_NAME, RCL_CLIENT,
\t\t\t     dp->ldp_name ? dp->ldp_namelen + 1 : 0);
\treq_capsule_set_size(pill, &RMF_DNE_PREPARE_GROUPS, RCL_CLIENT,
\t\t\t     dp->ldp_ngroups * sizeof(__u32));
\trc = ldlm_prep_enqueue_req(osp->opd_exp, req, NULL, 0);
\tif (rc) {
\t\tptlrpc_request_free(req);
\t\treturn ERR_PTR(rc);
\t}

\tlit = req_capsule_client_get(pill, &RMF_LDLM_INTENT);
\tlit->opc = dp->ldp_opc;
\tbody = req_capsule_client_get(pill, &RMF_MD_CREATE_PREPARE_REQ);
\t*body = dp->ldp_body;
\tfid_extract_from_res_name(&body->mcpr_fid, res_id);
\tbody->mcpr_padding0 = 0;
\tbody->mcpr_padding1 = 0;
\t/* object mode asks for the object's attributes only */
\tfor (i = 0; i < MLI_BUF_NR; i++)
\t\tbody->mcpr_buf_limit[i] = !dp->ldp_name && i != MLI_BUF_PATTR ?
\t\t\t0 : i == MLI_BUF_PATTR ? sizeof(struct mdt_body) :
\t\t\tOSP_DNE_PREPARE_XATTR_LIMIT;
\tif (dp->ldp_name) {
\t\tchar *name = req_capsule_client_get(pill, &RMF_NAME);

\t\tmemcpy(name, dp->ldp_name, dp->ldp_namelen);
\t\tname[dp->ldp_namelen] = '\\0';
\t} else {
\t\tbody->mcpr_flags |= MCPR_NO_LOOKUP;
\t}
\tif (dp->ldp_ngroups)
\t\tmemcpy(req_capsule_client_get(pill, &RMF_DNE_PREPARE_GROUPS),
\t\t       dp->ldp_groups, dp->ldp_ngroups * sizeof(__u32));

\trc = req_capsule_dne_prepare_size(pill, body->mcpr_buf_limit);
\tif (rc) {
\t\tptlrpc_req_put(req);
\t\treturn ERR_PTR(rc);
\t}
\tptlrpc_request_set_replen(req);
\treturn req;
}

/*
 * The peer's answer to a prepare intent, the lock granted. The reply is
 * checked against the request before any result could be used. This
 * requester uses no result yet, so a valid answer, the empty result and a
 * refused reply all leave the standard reads under the lock, which is what
 * the protocol asks for a reply it cannot use; the lock is kept.
 */
static void osp_dne_prepare_reply(struct osp_device *osp,
\t\t\t\t  struct ptlrpc_request *req,
\t\t\t\t  const struct ldlm_dne_prepare *dp)
{
\tconst char *rule = NULL;
\tconst char *what;
\tint rc;

\tif (req_capsule_rep_need_swab(&req->rq_pill)) {
\t\t/* the checks read the reply as received: ptlrpc swabbed it */
\t\twhat = \"not checked (other byte order)\";
\t} else {
\t\trc = lustre_dne_prepare_rep_check(req->rq_repmsg,
\t\t\t\t\t\t  req->rq_replen,
\t\t\t\t\t\t  req->rq_reqmsg,
\t\t\t\t\t\t  req->rq_reqlen, &rule);
\t\tif (rc == -EINVAL)
\t\t\twhat = \"its request refused\";
\t\telse if (rc)
\t\t\twhat = \"refused\";
\t\telse if (!req_capsule_get_size(&req->rq_pill,
\t\t\t\t\t       &RMF_MD_CREATE_PREPARE_REP,
\t\t\t\t\t       RCL_SERVER))
\t\t\twhat = \"the empty result\";
\t\telse
\t\t\twhat = \"results, not used yet\";
\t}
\tCDEBUG(D_RPCTRACE, \"%s: DNE prepare %s \"DNAME\": granted, %s%s%s\\n\",
\t       osp->opd_obd->obd_name, ldlm_it2str(dp->ldp_opc),
\t       encode_fn_dname(dp->ldp_name ? dp->ldp_namelen : 0,
\t\t\t       dp->ldp_name), what,
\t       rule ? \" by \" : \"\", rule ? rule : \"\");
}

";

/// The intent decided on the connection's flags, the pack, the fallback without it.
const PACK: &str = "\tintent = dp && !osp->opd_dne_prepare_off &&
\t\t exp_connect_flags2(osp->opd_exp) & OBD_CONNECT2_DNE_PREPARE;
again:
\tflags = LDLM_FL_NO_LRU;
\tif (intent) {
\t\treq = osp_dne_prepare_pack(osp, res_id, dp);
\t\tif (IS_ERR(req)) {
\t\t\tintent = false;
\t\t\tgoto again;
\t\t}
\t\tflags |= LDLM_FL_HAS_INTENT;
\t} else {
\t\treq = ldlm_enqueue_pack(osp->opd_exp, 0);
\t}
";

/// A failed intent enqueue holds no lock: enqueue again without it, and send no more.
const RETRY: &str = "\tif (intent && rc != ELDLM_OK) {
\t\tCDEBUG(D_RPCTRACE,
\t\t       \"%s: DNE prepare %s failed: rc = %d; plain enqueue\\n\",
\t\t       osp->opd_obd->obd_name, ldlm_it2str(dp->ldp_opc), rc);
\t\tosp->opd_dne_prepare_off = 1;
\t\tintent = false;
\t\tgoto again;
\t}

";

/// `struct osp_device` remembers a failed intent enqueue.
pub(crate) fn internal(src: &Source) -> Result<FileDiff, PatchError> {
    let f = src.file(OSP_INTERNAL)?;
    let last = f.find_line("\t\t\t\t\t opd_disconnecting:1;")?;
    f.diff_and_apply(&mut [Edit {
        at: last,
        delete: 1,
        insert: lines(
            "\t\t\t\t\t opd_disconnecting:1,
\t\t\t\t\t /* no more prepare intents */
\t\t\t\t\t opd_dne_prepare_off:1;",
        ),
    }])
}

/// `osp_md_object_lock()`: the intent attached, its reply checked, the fallback.
pub(crate) fn md_object(src: &Source) -> Result<FileDiff, PatchError> {
    let f = src.file(OSP_MD_OBJECT)?;
    let title = f.find_line(
        " * osp_md_object_lock() - Implementation of dt_object_operations::do_object_lock",
    )?;
    let open = title - 1;
    if f.line(open)? != "/**" {
        return Err(anchor(
            "the comment of osp_md_object_lock()",
            "no \"/**\" above it",
        ));
    }
    let ret = f.find_after(title, "the Return: of its comment", |l| l == " * Return:")?;
    let start = f.find_line("static int osp_md_object_lock(const struct lu_env *env,")?;
    let at = |what: &str, text: &str| f.find_after(start, what, |l| l == text);
    let res_id = at("its res_id", "\tstruct ldlm_res_id\t*res_id;")?;
    let rc = at("its rc", "\tint\t\t\trc = 0;")?;
    let flags = at("its flags", "\t__u64\t\t\tflags = LDLM_FL_NO_LRU;")?;
    let pack = at("its pack", "\treq = ldlm_enqueue_pack(osp->opd_exp, 0);")?;
    let enqueue = at("its enqueue", "\t\t\t      NULL, 0, LVB_T_NONE, lh, 0);")?;
    let put = at("its put", "\tptlrpc_req_put(req);")?;
    if !(res_id < rc && rc < flags && flags < pack && pack < enqueue && enqueue < put) {
        return Err(anchor(
            "osp_md_object_lock()",
            "its lines are not in the order expected",
        ));
    }
    let doc = "A name lock with a DNE prepare intent (einfo->ei_dne_prepare) carries it
only if the peer granted OBD_CONNECT2_DNE_PREPARE on this connection. If
the intent enqueue fails, no lock is held: it is sent again without the
intent, and no intent goes to this peer again.";
    let mut doc_lines: Vec<String> = doc.lines().map(|l| format!(" * {l}")).collect();
    doc_lines.push(" *".into());
    let mut retry = vec![String::new()];
    retry.extend(lines(RETRY.trim_end()));
    f.diff_and_apply(&mut [
        Edit::insert_before(open, lines(HELPERS)),
        Edit::insert_before(ret, doc_lines),
        Edit::insert_before(
            res_id,
            lines("\tstruct ldlm_dne_prepare *dp = einfo->ei_dne_prepare;"),
        ),
        Edit::insert_before(rc, lines("\tbool\t\t\tintent;")),
        Edit {
            at: flags,
            delete: 1,
            insert: lines("\t__u64\t\t\tflags;"),
        },
        Edit {
            at: pack,
            delete: 1,
            insert: lines(PACK),
        },
        Edit::insert_after(
            enqueue,
            lines("\tif (intent && rc == ELDLM_OK)\n\t\tosp_dne_prepare_reply(osp, req, dp);"),
        ),
        Edit::insert_after(put, retry),
    ])
}

fn anchor(what: &str, why: &str) -> PatchError {
    PatchError::Anchor {
        path: OSP_MD_OBJECT.into(),
        what: what.into(),
        why: why.into(),
    }
}
