//! C text in Lustre's layout: tabs to columns, comments wrapped at 80 columns, members and
//! enumerators aligned as the kernel style wants them.

use super::layout::{ArrayLen, Field, FieldType, Layout, md_create_prepare_rep};

/// Tab stops are every 8 columns.
const TAB: usize = 8;
/// checkpatch's line length.
pub(crate) const MAX_COL: usize = 80;

/// The column after `s` written from column `col` (tabs to the next stop).
pub(crate) fn col_after(mut col: usize, s: &str) -> usize {
    for ch in s.chars() {
        if ch == '\t' {
            col = (col / TAB + 1) * TAB;
        } else {
            col += 1;
        }
    }
    col
}

/// Tabs from column `col` to column `target` (at least one).
pub(crate) fn tabs_to(col: usize, target: usize) -> String {
    let mut t = String::from("\t");
    let mut c = (col / TAB + 1) * TAB;
    while c < target {
        t.push('\t');
        c += TAB;
    }
    t
}

/// Tabs, then spaces, from column `col` to exactly column `target` (one space at least).
pub(crate) fn pad_to(col: usize, target: usize) -> String {
    if target <= col {
        return " ".into();
    }
    let mut s = String::new();
    let mut c = col;
    while (c / TAB + 1) * TAB <= target {
        s.push('\t');
        c = (c / TAB + 1) * TAB;
    }
    s.push_str(&" ".repeat(target - c));
    s
}

/// `text` as a block comment indented by `indent`, wrapped at [`MAX_COL`].
pub(crate) fn block_comment(indent: &str, text: &str) -> Vec<String> {
    let width = MAX_COL - col_after(0, indent) - 3;
    let mut out = vec![format!("{indent}/*")];
    for para in text.split('\n') {
        let mut cur = String::new();
        for w in para.split(' ') {
            if !cur.is_empty() && cur.len() + 1 + w.len() > width {
                out.push(format!("{indent} * {cur}"));
                cur.clear();
            }
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(w);
        }
        out.push(format!("{indent} * {cur}").trim_end().to_string());
    }
    out.push(format!("{indent} */"));
    out
}

/// A one-line `/* text */` comment above a declaration, or a block when it is too long.
pub(crate) fn comment(indent: &str, text: &str) -> Vec<String> {
    let one = format!("{indent}/* {text} */");
    if col_after(0, &one) <= MAX_COL && !text.contains('\n') {
        vec![one]
    } else {
        block_comment(indent, text)
    }
}

/// The C type of a member: `__u32` or `struct lu_fid`.
pub(crate) fn member_type(f: &Field) -> String {
    match f.ty {
        FieldType::Struct(l) => format!("struct {}", l.name),
        t => t.c_type().to_string(),
    }
}

/// An array's length as C writes it: its constant (`MLI_BUF_MAX`), or the number.
pub(crate) fn array_bound(a: ArrayLen) -> String {
    if a.c_name.is_empty() {
        a.len.to_string()
    } else {
        a.c_name.to_string()
    }
}

/// The name of the constant that sizes the arrays indexed by result (`enum md_lock_intent_buf`).
const MLI_BUF_MAX_NAME: &str = "MLI_BUF_MAX";
/// The fixed wire length of those arrays in the series: a `#define`, so that a value added to
/// the enum cannot change the wire (a `BUILD_BUG_ON` ties the two).
pub(crate) const MLI_BUF_NR: &str = "MLI_BUF_NR";

/// An array's length as the series writes it: [`MLI_BUF_NR`] for the arrays indexed by result.
pub(crate) fn series_bound(a: ArrayLen) -> String {
    if a.c_name == MLI_BUF_MAX_NAME {
        MLI_BUF_NR.to_string()
    } else {
        array_bound(a)
    }
}

/// What the series says of a member where the layout table's note is not enough for a Lustre
/// reader.
fn series_doc(f: &Field) -> &'static str {
    // the member named by its generated `FieldAt`, not spelled again
    if f.name == md_create_prepare_rep::mcpp_status.name {
        "0 or a negative errno, in wire form: set by ptlrpc_status_hton() and read by \
         ptlrpc_status_ntoh(), as lock_policy_res2"
    } else {
        f.doc
    }
}

/// The length of the arrays of `l` indexed by result (`mcpr_buf_limit[MLI_BUF_MAX]`), if any.
pub(crate) fn mli_array(l: &Layout) -> Option<ArrayLen> {
    l.fields
        .iter()
        .filter_map(|f| f.array)
        .find(|a| a.c_name == MLI_BUF_MAX_NAME)
}

/// The member as declared: `mcpr_buf_limit[MLI_BUF_MAX]` (`[MLI_BUF_NR]` in the series).
pub(crate) fn member_decl(f: &Field, series: bool) -> String {
    match (f.array, series) {
        (Some(a), false) => format!("{}[{}]", f.name, array_bound(a)),
        (Some(a), true) => format!("{}[{}]", f.name, series_bound(a)),
        (None, _) => f.name.to_string(),
    }
}

/// The C constants of a flags member: its bit names when they are C names in the member's
/// own namespace (`MCPR_*` for `mcpr_flags`). A result mask's bits are named by the crate
/// (`PATTR`), where C writes `1 << MLI_BUF_PATTR`, so they declare nothing.
pub(crate) fn c_constants(f: &Field) -> Option<&'static [(&'static str, u64)]> {
    let prefix = f.name.split('_').next()?.to_ascii_uppercase() + "_";
    f.names
        .filter(|names| !names.is_empty() && names.iter().all(|(n, _)| n.starts_with(&prefix)))
}

/// Whether a member is padding or reserved (no value of the crate holds it).
pub(crate) fn is_padding(f: &Field) -> bool {
    f.rust.is_none()
}

/// `struct NAME { ... };` with each member's description as its comment.
pub(crate) fn struct_decl(l: &Layout) -> Vec<String> {
    struct_decl_of(l, None, false)
}

/// [`struct_decl`] as the series writes it: fixed array bounds, Lustre's notes.
pub(crate) fn series_struct_decl(l: &Layout) -> Vec<String> {
    struct_decl_of(l, None, true)
}

/// [`struct_decl`], with an attribute after the closing brace (`} ATTR;`), such as a packed
/// attribute's macro.
pub(crate) fn struct_decl_with(l: &Layout, attr: Option<&str>) -> Vec<String> {
    struct_decl_of(l, attr, false)
}

fn struct_decl_of(l: &Layout, attr: Option<&str>, series: bool) -> Vec<String> {
    let mut out = comment("", l.doc);
    out.push(format!("struct {} {{", l.name));
    for f in l.fields {
        let ty = member_type(f);
        let decl = format!("{};", member_decl(f, series));
        let doc = if series { series_doc(f) } else { f.doc };
        let head = format!("\t{ty}{}{decl}", tabs_to(col_after(8, &ty), 24));
        let end = col_after(0, &head);
        let inline = format!("{head}{}/* {doc} */", tabs_to(end, 40));
        if col_after(0, &inline) <= MAX_COL {
            out.push(inline);
        } else {
            out.extend(comment("\t", doc));
            out.push(head);
        }
    }
    out.push(match attr {
        Some(a) => format!("}} {a};"),
        None => "};".into(),
    });
    out
}

/// `enum NAME { A = v, ... };` with values in hex (`hex`) or decimal.
pub(crate) fn enum_decl(
    doc: &str,
    name: &str,
    members: &[(String, u64, Option<String>)],
    hex: bool,
) -> Vec<String> {
    let mut out = comment("", doc);
    out.push(format!("enum {name} {{"));
    let width = members.iter().map(|(n, _, _)| n.len()).max().unwrap_or(0);
    let eq_col = ((8 + width) / TAB + 1) * TAB;
    for (n, v, c) in members {
        let value = if hex {
            format!("0x{v:08x}")
        } else {
            v.to_string()
        };
        let mut line = format!("\t{n}{}= {value},", tabs_to(8 + n.len(), eq_col));
        if let Some(c) = c {
            let with = format!("{line}\t/* {c} */");
            if col_after(0, &with) <= MAX_COL {
                line = with;
            }
        }
        out.push(line);
    }
    out.push("};".into());
    out
}

/// Lines from a `&str` list.
pub(crate) fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}
