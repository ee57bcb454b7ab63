//! The request format: `RMF_*` fields for the bodies, the groups and each optional result,
//! `RQF_LDLM_INTENT_DNE_PREPARE` in the buffer order of WIRE.md sections 5 and 7, and
//! `req_capsule_dne_prepare_size()`, which sizes the result fields by the requester's limits.

use lustre_dne_intent::intent::MliBuf;

use super::base::{Edit, Source};
use super::c::{lines, tabs_to};
use super::layout::Layout;
use super::{Draft, PatchError, new_layouts, swab};

const LAYOUT_C: &str = "lustre/ptlrpc/layout.c";
const LAYOUT_H: &str = "lustre/include/lustre_req_layout.h";

/// The request format's name.
pub(crate) const RQF: &str = "RQF_LDLM_INTENT_DNE_PREPARE";
/// The field of the groups buffer.
pub(crate) const RMF_GROUPS: &str = "RMF_DNE_PREPARE_GROUPS";
/// The helper that sizes the result fields.
pub(crate) const SIZE_FN: &str = "req_capsule_dne_prepare_size";

/// `RMF_MD_CREATE_PREPARE_REQ` for a structure.
pub(crate) fn rmf(l: &Layout) -> String {
    format!("RMF_{}", l.name.to_uppercase())
}

/// The field of a result: `RMF_MDT_BODY` for the attributes (they are one `struct mdt_body`),
/// `RMF_MLI_DEF_ACL` and the like for the xattrs.
pub(crate) fn rmf_result(b: MliBuf) -> String {
    match b.xattr_name() {
        None => "RMF_MDT_BODY".into(),
        Some(_) => format!("RMF_MLI_{}", b.name().trim_start_matches("MLI_BUF_")),
    }
}

/// The fields the series defines for the results: the xattrs (the attributes reuse
/// `RMF_MDT_BODY`).
fn new_result_fields() -> impl Iterator<Item = MliBuf> {
    MliBuf::ALL.into_iter().filter(|b| b.xattr_name().is_some())
}

fn field_def(rmf: &str, name: &str, flags: &str, size: &str, swabber: &str) -> Vec<String> {
    let first = format!("\tDEFINE_MSGF(\"{name}\", {flags},");
    let mut out = vec![format!("struct req_msg_field {rmf} =")];
    if first.len() + size.len() < 72 {
        out.push(format!("{first} {size},"));
    } else {
        out.push(first);
        out.push(format!("\t\t    {size},"));
    }
    out.push(format!("\t\t    {swabber}, NULL);"));
    out.push(format!("EXPORT_SYMBOL({rmf});"));
    out
}

pub(crate) fn draft(src: &Source) -> Result<Draft, PatchError> {
    let [req, rep] = new_layouts()?;
    let c = src.file(LAYOUT_C)?;

    // The buffers of each side, in the order of WIRE.md sections 5 and 7.
    let getxattr =
        c.find_line("static const struct req_msg_field *ldlm_intent_getxattr_server[] = {")?;
    let getxattr_end = c.find_after(getxattr, "the end of ldlm_intent_getxattr_server[]", |l| {
        l == "};"
    })?;
    let mut arrays = lines(&format!(
        "\nstatic const struct req_msg_field *ldlm_intent_dne_prepare_client[] = {{\n\
         \t&RMF_PTLRPC_BODY,\n\t&RMF_DLM_REQ,\n\t&RMF_LDLM_INTENT,\n\t&{},\n\
         \t&RMF_NAME,\t\t/* empty in object mode: check its size first */\n\t&{RMF_GROUPS}\n}};\n\n\
         static const struct req_msg_field *ldlm_intent_dne_prepare_server[] = {{\n\
         \t&RMF_PTLRPC_BODY,\n\t&RMF_DLM_REP,\n\t&{},\t/* empty: the empty result */",
        rmf(req),
        rmf(rep)
    ));
    let n = MliBuf::ALL.len();
    for (i, b) in MliBuf::ALL.into_iter().enumerate() {
        let sep = if i + 1 == n { "" } else { "," };
        arrays.push(format!("\t&{}{sep}", rmf_result(b)));
    }
    arrays.push("};".into());

    let quota = c.find_line("\t&RQF_LDLM_INTENT_QUOTA,")?;

    // The fields, after RMF_LAYOUT_INTENT.
    let after = c.find_line("EXPORT_SYMBOL(RMF_LAYOUT_INTENT);")?;
    let mut fields = Vec::new();
    for l in [req, rep] {
        fields.push(String::new());
        fields.extend(field_def(
            &rmf(l),
            l.name,
            "0",
            &format!("sizeof(struct {})", l.name),
            &swab::swabber(l),
        ));
    }
    fields.push(String::new());
    fields.push("/* caller's supplementary groups of a DNE prepare intent */".into());
    fields.extend(field_def(
        RMF_GROUPS,
        "dne_prepare_groups",
        "RMF_F_STRUCT_ARRAY",
        "sizeof(__u32)",
        "lustre_swab_generic_32s",
    ));
    fields.push(String::new());
    fields.extend(lines(
        "/*\n * Optional xattr results of a DNE prepare reply (enum md_lock_intent_buf),\n \
         * each sized by the requester's mcpr_buf_limit[] and read at the length\n \
         * sent; stored and sent little-endian, never swabbed. The attributes are\n \
         * RMF_MDT_BODY.\n */",
    ));
    let xattrs: Vec<MliBuf> = new_result_fields().collect();
    for (i, b) in xattrs.iter().enumerate() {
        let name = rmf_result(*b);
        let lower = name.trim_start_matches("RMF_").to_lowercase();
        fields.push(format!("struct req_msg_field {name} ="));
        // No size check: the requester sizes the field at its limit, the responder sends at
        // most that, and the reader takes the length sent.
        fields.push(format!(
            "\tDEFINE_MSGF(\"{lower}\", RMF_F_NO_SIZE_CHECK, -1, NULL, NULL);"
        ));
        fields.push(format!("EXPORT_SYMBOL({name});"));
        if i + 1 < xattrs.len() {
            fields.push(String::new());
        }
    }

    // The format and the sizing helper, after RQF_LDLM_INTENT_GETXATTR.
    let fmt_at = c.find_line("EXPORT_SYMBOL(RQF_LDLM_INTENT_GETXATTR);")?;
    let mut fmt = lines(&format!(
        "\nstruct req_format {RQF} =\n\tDEFINE_REQ_FMT0(\"{}\",\n\
         \t\t\tldlm_intent_dne_prepare_client,\n\t\t\tldlm_intent_dne_prepare_server);\n\
         EXPORT_SYMBOL({RQF});\n\n\
         /* The result fields of {RQF}, by result */\n\
         static const struct req_msg_field *dne_prepare_results[MLI_BUF_NR] = {{",
        RQF.trim_start_matches("RQF_")
    ));
    for b in MliBuf::ALL {
        let idx = format!("\t[{}]", b.name());
        fmt.push(format!(
            "{idx}{}= &{},",
            tabs_to(super::c::col_after(0, &idx), 32),
            rmf_result(b)
        ));
    }
    fmt.push("};".into());
    fmt.push(String::new());
    fmt.extend(size_fn());
    let c_diff = c.diff_and_apply(&mut [
        Edit::insert_after(getxattr_end, arrays),
        Edit::insert_after(quota, vec![format!("\t&{RQF},")]),
        Edit::insert_after(after, fields),
        Edit::insert_after(fmt_at, fmt),
    ])?;

    let h = src.file(LAYOUT_H)?;
    let set_size = h.find_line("void req_capsule_set_size(struct req_capsule *pill,")?;
    let set_size_end = h.find_after(set_size, "the end of req_capsule_set_size()", |l| {
        l.ends_with(");")
    })?;
    let rqf = h.find_line("extern struct req_format RQF_LDLM_INTENT_QUOTA;")?;
    let rmf_at = h.find_line("extern struct req_msg_field RMF_LAYOUT_INTENT;")?;
    let externs: Vec<String> = [rmf(req), rmf(rep), RMF_GROUPS.to_string()]
        .into_iter()
        .chain(new_result_fields().map(rmf_result))
        .map(|r| format!("extern struct req_msg_field {r};"))
        .collect();
    let h_diff = h.diff_and_apply(&mut [
        Edit::insert_after(
            set_size_end,
            std::iter::once(format!(
                "int {SIZE_FN}(struct req_capsule *pill, const __u32 *sizes);"
            ))
            .chain(super::check::prototypes())
            .collect(),
        ),
        Edit::insert_after(rqf, vec![format!("extern struct req_format {RQF};")]),
        Edit::insert_after(rmf_at, externs),
    ])?;
    Ok(Draft {
        summary: "ptlrpc: add DNE prepare intent request format".into(),
        body: vec![
            format!(
                "Add {RQF} for the enqueue of a DNE prepare intent. The \
                 request carries ptlrpc_body, ldlm_request, ldlm_intent, struct \
                 md_create_prepare_req, the entry name (empty in object mode) and \
                 the caller's supplementary groups ({RMF_GROUPS}, an array of \
                 __u32). The reply carries ptlrpc_body, ldlm_reply, struct \
                 md_create_prepare_rep (empty for the empty result) and one field \
                 per optional result of enum md_lock_intent_buf: RMF_MDT_BODY for \
                 the attributes, and a field per xattr, never swabbed. In object \
                 mode the name buffer is empty: a receiver checks its size before \
                 req_capsule_client_get(), which would log a string without its \
                 NUL."
            ),
            format!(
                "The results have no fixed size: {SIZE_FN}() sizes them by the \
                 requester's mcpr_buf_limit[] before the request is packed, so the \
                 reply buffer holds every result at its limit, and by the sizes \
                 sent before the reply is packed. It refuses a size above \
                 XATTR_SIZE_MAX and sizes the attributes as one mdt_body or none, \
                 so that no limit reaches the size assertions of \
                 req_capsule_set_size()."
            ),
        ],
        // A new format in req_formats[] is checked by req_layout_init() when ptlrpc loads.
        test_parameters: Some("mdtcount=4 mdscount=2 testlist=sanity".into()),
        diffs: vec![c_diff, h_diff],
    })
}

/// `req_capsule_dne_prepare_size()`: the reply's result sizes, checked and clamped so that no
/// requester limit or responder size reaches the assertions of `req_capsule_set_size()` (a
/// fixed-size field takes 0 or at least its size) nor leaves the capsule expecting more than
/// `req_capsule_server_get()` will find (the attributes are exactly one `mdt_body`).
fn size_fn() -> Vec<String> {
    lines(&format!(
        "/**\n \
         * {SIZE_FN}() - size the results of a DNE prepare reply\n \
         * @pill: capsule of an {RQF} request\n \
         * @sizes: size of each result, by enum md_lock_intent_buf\n \
         *\n \
         * The requester passes its mcpr_buf_limit[] before packing the request, so\n \
         * that the reply buffer it posts holds every result at its limit; the\n \
         * responder passes the size of each result it sends (0 when it sends none)\n \
         * before packing the reply. The attributes are one struct mdt_body or\n \
         * nothing: a smaller size asks for none, a larger one for one body.\n \
         *\n \
         * Return: 0, or -EINVAL if a size is above XATTR_SIZE_MAX (nothing set).\n \
         */\n\
         int {SIZE_FN}(struct req_capsule *pill, const __u32 *sizes)\n\
         {{\n\
         \tint i;\n\n\
         \tfor (i = 0; i < {nr}; i++)\n\
         \t\tif (sizes[i] > XATTR_SIZE_MAX)\n\
         \t\t\treturn -EINVAL;\n\n\
         \tfor (i = 0; i < {nr}; i++) {{\n\
         \t\t__u32 size = sizes[i];\n\n\
         \t\tif (i == MLI_BUF_PATTR)\n\
         \t\t\tsize = size < sizeof(struct mdt_body) ? 0 :\n\
         \t\t\t       sizeof(struct mdt_body);\n\
         \t\treq_capsule_set_size(pill, dne_prepare_results[i], RCL_SERVER,\n\
         \t\t\t\t     size);\n\
         \t}}\n\
         \treturn 0;\n\
         }}\n\
         EXPORT_SYMBOL({SIZE_FN});",
        nr = super::c::MLI_BUF_NR,
    ))
}
