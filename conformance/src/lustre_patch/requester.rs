//! The requester, the design's next step after the empty result: the coordinating MDT names
//! the operation of a parent lock (create, unlink, rename), the name lock of a remote parent
//! carries it to the OSP in `struct ldlm_enqueue_info`, and the OSP attaches the prepare intent
//! only when the peer granted `OBD_CONNECT2_DNE_PREPARE` (WIRE.md W4.1). The OSP checks the
//! reply with `lustre_dne_prepare_rep_check()` and uses no result yet: every answer leaves the
//! standard reads under the lock (MODEL.md §3, items 2 and 4). The OSP's part is in
//! [`super::osp`].

use lustre_dne_intent::intent::Operation;
use lustre_dne_intent::limits::GROUPS_MAX;

use super::base::{Edit, FileDiff, Source};
use super::connect::NAME as FLAG;
use super::{Draft, PatchError};

const LUSTRE_DLM: &str = "lustre/include/lustre_dlm.h";
const MDT_INTERNAL: &str = "lustre/mdt/mdt_internal.h";
const MDT_HANDLER: &str = "lustre/mdt/mdt_handler.c";
const MDT_REINT: &str = "lustre/mdt/mdt_reint.c";

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

/// `struct ldlm_dne_prepare`, before the enqueue info that points at it.
fn dlm_struct() -> Vec<String> {
    lines(&format!(
        "/* The most supplementary groups a DNE prepare intent carries */
#define LDLM_DNE_PREPARE_GROUPS_MAX\t{GROUPS_MAX}

/**
 * A DNE prepare intent (IT_DNE_*_PREPARE) to attach to the enqueue of a name
 * lock in a remote parent directory. The coordinating MDT fills it, and the
 * OSP sends it only if the peer granted {FLAG}.
 */
struct ldlm_dne_prepare {{
\tenum ldlm_intent_flags\tldp_opc;\t/* IT_DNE_*_PREPARE */
\t/* the entry's name, NULL in object mode (MCPR_NO_LOOKUP) */
\tconst char\t\t*ldp_name;
\tint\t\t\tldp_namelen;
\t/* all but mcpr_fid (the lock's) and mcpr_buf_limit (the OSP's) */
\tstruct md_create_prepare_req ldp_body;
\t__u32\t\t\tldp_ngroups;
\t__u32\t\t\tldp_groups[LDLM_DNE_PREPARE_GROUPS_MAX];
}};
\n"
    ))
}

/// `lustre_dlm.h`: the intent's structure and `ei_dne_prepare`.
fn lustre_dlm(src: &Source) -> Result<FileDiff, PatchError> {
    let f = src.file(LUSTRE_DLM)?;
    let doc = f.find_line(" * Common ldlm_enqueue parameters")?;
    let open = doc.checked_sub(1).ok_or(PatchError::Anchor {
        path: LUSTRE_DLM.into(),
        what: "the comment above struct ldlm_enqueue_info".into(),
        why: "it is the first line".into(),
    })?;
    if f.line(open)? != "/**" {
        return Err(PatchError::Anchor {
            path: LUSTRE_DLM.into(),
            what: "the comment above struct ldlm_enqueue_info".into(),
            why: "the line before it is not \"/**\"".into(),
        });
    }
    f.find_after(doc, "struct ldlm_enqueue_info", |l| {
        l == "struct ldlm_enqueue_info {"
    })?;
    let slot =
        f.find_line("\tunsigned int\tei_mod_slot:1;\t/** whether acquire mod rpc slot */")?;
    f.diff_and_apply(&mut [
        Edit::insert_before(open, dlm_struct()),
        Edit::insert_after(
            slot,
            lines(
                "\t/** DNE prepare intent for a remote name lock, or NULL (LU-20808) */
\tstruct ldlm_dne_prepare *ei_dne_prepare;",
            ),
        ),
    ])
}

/// `mdt_internal.h`: the thread's intent and the setter.
fn mdt_internal(src: &Source) -> Result<FileDiff, PatchError> {
    let f = src.file(MDT_INTERNAL)?;
    let einfo = f.find_line("\tstruct ldlm_enqueue_info   mti_remote_einfo;")?;
    let pdo = f.find_line(
        "int mdt_object_pdo_lock(struct mdt_thread_info *info, struct mdt_object *obj,",
    )?;
    f.diff_and_apply(&mut [
        Edit::insert_after(
            einfo,
            lines(
                "\t/* the DNE prepare intent of the next remote name lock, if any */
\tstruct ldlm_dne_prepare\t   mti_dne_prepare;",
            ),
        ),
        Edit::insert_before(
            pdo,
            lines(
                "void mdt_dne_prepare_set(struct mdt_thread_info *info,
\t\t\t enum ldlm_intent_flags opc, __u32 child_mode);",
            ),
        ),
    ])
}

/// The MDT's helpers: the setter, the credentials, the intent of a name lock.
const MDT_HELPERS: &str = "/**
 * mdt_dne_prepare_set() - name the operation of the next parent lock
 * @info: the thread's info
 * @opc: IT_DNE_*_PREPARE, or 0 once the parent is locked
 * @child_mode: a create's mode, with S_IFMT; else 0
 *
 * If the parent is remote, its name lock carries a DNE prepare intent for
 * @opc (LU-20808); the OSP sends it only to a peer that granted
 * OBD_CONNECT2_DNE_PREPARE.
 */
void mdt_dne_prepare_set(struct mdt_thread_info *info,
\t\t\t enum ldlm_intent_flags opc, __u32 child_mode)
{
\tinfo->mti_dne_prepare.ldp_opc = opc;
\tinfo->mti_dne_prepare.ldp_body.mcpr_child_mode = child_mode;
}

/* the caller's credentials, as the peer is to check them */
static void mdt_dne_prepare_creds(const struct lu_ucred *uc,
\t\t\t\t  struct ldlm_dne_prepare *dp)
{
\tstruct md_create_prepare_req *body = &dp->ldp_body;
\t__u32 n = 0;
\tint i;

\tbody->mcpr_flags = 0;
\tbody->mcpr_fsuid = uc->uc_fsuid;
\tbody->mcpr_fsgid = uc->uc_fsgid;
\tbody->mcpr_umask = uc->uc_umask & 0777;
\tbody->mcpr_cap = 0;
\tfor (i = 0; i <= CAP_LAST_CAP && i < 64; i++)
\t\tif (cap_raised(uc->uc_cap, i))
\t\t\tbody->mcpr_cap |= BIT_ULL(i);

\tif (uc->uc_ginfo) {
\t\tfor (i = 0; i < uc->uc_ginfo->ngroups; i++) {
\t\t\tif (n == LDLM_DNE_PREPARE_GROUPS_MAX) {
\t\t\t\tbody->mcpr_flags |= MCPR_GROUPS_PARTIAL;
\t\t\t\tbreak;
\t\t\t}
\t\t\tdp->ldp_groups[n++] = from_kgid(&init_user_ns,
\t\t\t\t\t\t       uc->uc_ginfo->gid[i]);
\t\t}
\t} else {
\t\tfor (i = 0; i < ARRAY_SIZE(uc->uc_suppgids); i++)
\t\t\tif (uc->uc_suppgids[i] != -1)
\t\t\t\tdp->ldp_groups[n++] = uc->uc_suppgids[i];
\t}
\tdp->ldp_ngroups = n;
}

/* the DNE prepare intent of a remote name lock, or NULL: none planned */
static struct ldlm_dne_prepare *
mdt_dne_prepare_get(struct mdt_thread_info *info, const struct lu_name *name)
{
\tstruct ldlm_dne_prepare *dp = &info->mti_dne_prepare;
\tstruct ptlrpc_request *req = mdt_info_req(info);
\tstruct lu_ucred *uc;

\t/* a replay takes the standard path (no intent) */
\tif (!dp->ldp_opc || !name || !lu_name_is_valid(name) ||
\t    name->ln_namelen > NAME_MAX ||
\t    (req && req_is_replay(req)))
\t\treturn NULL;
\tuc = lu_ucred_check(info->mti_env);
\tif (!uc)
\t\treturn NULL;

\tmdt_dne_prepare_creds(uc, dp);
\tdp->ldp_name = name->ln_name;
\tdp->ldp_namelen = name->ln_namelen;
\treturn dp;
}
";

/// The switch of the two-MDT run: an MDT started with `dne_prepare=0` grants peers no flag.
const MDT_PARAM: &str = "static bool dne_prepare = true;
module_param(dne_prepare, bool, 0644);
MODULE_PARM_DESC(dne_prepare,
\t\t \"grant OBD_CONNECT2_DNE_PREPARE to peer MDTs (LU-20808)\");
";

/// `mdt_handler.c`: the switch, the intent on the remote name lock, the helpers.
fn mdt_handler(src: &Source) -> Result<FileDiff, PatchError> {
    let f = src.file(MDT_HANDLER)?;
    let dev = f.find_line("static struct mdt_device *mdt_dev(struct lu_device *d);")?;
    let try_fn =
        f.find_line("static int mdt_remote_object_lock_try(struct mdt_thread_info *mti,")?;
    let cache = f.find_after(try_fn, "the cache parameter", |l| {
        l == "\t\t\t\t      bool cache)"
    })?;
    let slot = f.find_after(cache, "ei_req_slot", |l| l == "\teinfo->ei_req_slot = 1;")?;
    let pdo_doc = f.find_line(" * Helper function to take PDO and hash lock.")?;
    let pdo_try = f.find_line("\t\t\t\t\tpolicy, res_id, false);")?;
    let rreg = f.find_line("\t\t\tlh->mlh_rreg_mode, policy, res_id, false);")?;
    let internal = f.find_line("\t\t\t\t\t\tres_id, cache);")?;
    let supp2 = f.find_line("\t\tdata->ocd_connect_flags2 &= supported2;")?;
    let mut helpers = lines(MDT_HELPERS);
    helpers.push(String::new());
    let mut param = lines(MDT_PARAM);
    param.push(String::new());
    let replace = |at: usize, insert: &str| Edit {
        at,
        delete: 1,
        insert: lines(insert),
    };
    f.diff_and_apply(&mut [
        Edit::insert_before(dev, param),
        replace(
            cache,
            "\t\t\t\t      bool cache,\n\t\t\t\t      struct ldlm_dne_prepare *prepare)",
        ),
        Edit::insert_after(slot, lines("\teinfo->ei_dne_prepare = prepare;")),
        Edit::insert_before(pdo_doc - 1, helpers),
        replace(pdo_try, "\t\t\t\t\tpolicy, res_id, false, NULL);"),
        replace(
            rreg,
            "\t\t\tlh->mlh_rreg_mode, policy, res_id, false,\n\t\t\tmdt_dne_prepare_get(info, name));",
        ),
        replace(internal, "\t\t\t\t\t\tres_id, cache, NULL);"),
        Edit::insert_before(
            supp2,
            lines(&format!(
                "\t\t/* a peer connecting without it sends no prepare intents */
\t\tif (!dne_prepare)
\t\t\tsupported2 &= ~{FLAG};
\n"
            )),
        ),
    ])
}

/// The intent named around one parent lock: set before, cleared after.
fn around(call: &str, op: Operation, mode: &str) -> Vec<String> {
    vec![
        format!("\tmdt_dne_prepare_set(info, {}, {mode});", op.opc_name()),
        call.to_string(),
        "\tmdt_dne_prepare_set(info, 0, 0);".into(),
    ]
}

/// `mdt_reint.c`: mkdir and the other creates, unlink and rename name their parent locks.
fn mdt_reint(src: &Source) -> Result<FileDiff, PatchError> {
    let f = src.file(MDT_REINT)?;
    // mdt_create()'s parent lock: the only one on `lh` with the request's name
    let create_call = "\trc = mdt_parent_lock(info, parent, lh, &rr->rr_name, LCK_PW);";
    let create = f.find_line(create_call)?;
    let unlink_call = "\trc = mdt_parent_lock(info, mp, parent_lh, &rr->rr_name, LCK_PW);";
    let unlink = f.find_line(unlink_call)?;
    // in mdt_lock_two_dirs(), which a rename calls
    let first_call = "\trc = mdt_parent_lock(info, mfirstdir, lh_firstdirp, firstname, LCK_PW);";
    let first = f.find_line(first_call)?;
    if f.lines(first + 1, first + 3)? != ["\tif (rc)", "\t\treturn rc;"] {
        return Err(PatchError::Anchor {
            path: MDT_REINT.into(),
            what: "the return after a rename's first parent lock".into(),
            why: "the two lines after it are not `if (rc) return rc;`".into(),
        });
    }
    let unlock = f.find_after(first, "the unlock of a rename's first parent", |l| {
        l == "\t\tmdt_object_unlock(info, mfirstdir, lh_firstdirp, rc);"
    })?;
    if f.line(unlock - 1)? != "\tif (rc != 0)" {
        return Err(PatchError::Anchor {
            path: MDT_REINT.into(),
            what: "the test before a rename's unlock".into(),
            why: "the line above it is not `if (rc != 0)`".into(),
        });
    }
    let mut rename = vec![format!(
        "\tmdt_dne_prepare_set(info, {}, 0);",
        Operation::Rename.opc_name()
    )];
    rename.extend(lines(&format!(
        "{first_call}\n\tif (rc) {{\n\t\tmdt_dne_prepare_set(info, 0, 0);\n\t\treturn rc;\n\t}}"
    )));
    f.diff_and_apply(&mut [
        Edit {
            at: create,
            delete: 1,
            insert: around(create_call, Operation::Create, "ma->ma_attr.la_mode"),
        },
        Edit {
            at: unlink,
            delete: 1,
            insert: around(unlink_call, Operation::Unlink, "0"),
        },
        Edit {
            at: first,
            delete: 3,
            insert: rename,
        },
        // before `if (rc != 0)`, the line above the unlock
        Edit::insert_before(unlock - 1, lines("\tmdt_dne_prepare_set(info, 0, 0);")),
    ])
}

/// The page for the module parameter, which Lustre asks of every new one (its checkpatch notes
/// each `MODULE_PARM_DESC`).
const MAN_PAGE: &str = "Documentation/man4/dne_prepare.4";

fn man_page() -> Vec<String> {
    lines(&format!(
        ".TH DNE_PREPARE 4 2026-12-06 Lustre \"Lustre Kernel Interfaces\"
.SH NAME
dne_prepare \\- let peer MDTs send DNE prepare intents
.SH SYNOPSIS
.SY
.BI \"modprobe mdt dne_prepare=\" ENABLE
.SY
.BI \"echo \" ENABLE \" > /sys/module/mdt/parameters/dne_prepare\"
.YS
.SS PROPERTIES
.TP
.B Access Permissions
.br
.BR 644 \" | \" -rw-r--r--
.TP
.B Scope
.br
Global, for every MDT of the node
.TP
.B Config
.br
Always present
.TP
.B Default
.br
.RB dne_prepare= 1
.SH DESCRIPTION
When
.B dne_prepare
is 1, an MDT grants {FLAG} to a peer MDT that asks for it
when it connects, and the peer may then attach a DNE prepare intent to the
enqueue of a name lock in a directory of this MDT, for a create, an unlink
or a rename it coordinates.
When it is 0, the flag is not granted, and peers take their standard path:
a plain enqueue, then their own reads under the lock.
A change applies to connections made after it.
.SH MODULES
This parameter is in the following module:
.EX
.B mdt
.EE
.SH AVAILABILITY
.B dne_prepare
is part of the
.BR lustre (7)
filesystem package since release 2.18.0.
.\\\" commit v2_17_57
.SH SEE ALSO
.BR lctl-get_param (8)
"
    ))
}

pub(crate) fn draft(src: &Source) -> Result<Draft, PatchError> {
    let mut diffs = vec![
        lustre_dlm(src)?,
        mdt_internal(src)?,
        mdt_handler(src)?,
        mdt_reint(src)?,
        super::osp::internal(src)?,
        super::osp::md_object(src)?,
        FileDiff::new_file(MAN_PAGE, &man_page()),
    ];
    diffs.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Draft {
        summary: "osp: send DNE prepare intents on remote name locks".into(),
        body: vec![
            "Name the operation of a parent lock in mdt_create(), \
             mdt_reint_unlink() and mdt_lock_two_dirs(), and carry it, with the \
             entry's name and the caller's credentials and groups, to the name \
             lock of a remote parent in struct ldlm_enqueue_info \
             (ei_dne_prepare). A replay carries none."
                .into(),
            format!(
                "osp_md_object_lock() attaches it as an IT_DNE_*_PREPARE intent \
                 (RQF_LDLM_INTENT_DNE_PREPARE) only when the peer granted \
                 {FLAG} on the current connection. If that enqueue fails, no lock \
                 is held: the OSP enqueues again without the intent and sends no \
                 more intents to that peer."
            ),
            "The reply is checked against the request with \
             lustre_dne_prepare_rep_check() before any result could be used. \
             No result is used yet: a valid answer, the empty result and a \
             refused reply all leave the standard reads under the granted lock, \
             as the protocol asks of a reply the requester cannot use."
                .into(),
            "The mdt module parameter dne_prepare=0 grants peers no flag, so that \
             the path without intents can be compared on the same build \
             (Documentation/man4/dne_prepare.4)."
                .into(),
        ],
        test_parameters: Some("mdtcount=4 mdscount=2 testlist=sanity,sanityn".into()),
        diffs,
    })
}
