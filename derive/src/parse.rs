//! Reads the declaration: the struct's arguments, its `#[c_member]`s and each field's `#[c]`.

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Error, Expr, Fields, Ident, LitInt, LitStr, Path, Token};

/// The C type of one element of a member.
pub enum CType {
    /// `__u8` … `__s64`: the C spelling, the zerocopy type (none for `__u8`), the `FieldType`.
    Int {
        zerocopy: Option<&'static str>,
        field_type: &'static str,
    },
    /// `struct T`.
    Struct(Ident),
}

/// An array member's length: a constant (its name is the C length) or a literal.
pub enum Len {
    Const(Ident),
    Lit(LitInt),
}

/// One C member, held by the value or not.
pub struct Member {
    pub offset: u64,
    pub offset_lit: LitInt,
    pub ctype: CType,
    pub name: Ident,
    pub len: Option<Len>,
    pub group: Option<Ident>,
    pub doc: String,
    /// The `Display` variant, explicit or defaulted.
    pub display: &'static str,
    /// The `Shown` variant, explicit or defaulted.
    pub shown: &'static str,
    /// `index = EXPR`: the names of an array's indices (a `[&str; LEN]` constant or literal).
    pub index: Option<Expr>,
    /// `zero = "…"`: what a value of 0 means.
    pub zero: Option<LitStr>,
    /// The value's field and its type; `None` for a member the value does not hold.
    pub rust: Option<(Ident, syn::Type)>,
}

/// How the value converts to and from the raw layout.
#[derive(PartialEq, Eq)]
pub enum Convert {
    /// No `WireStruct`: the value is converted by hand.
    None,
    /// `to_raw` builds the whole raw layout.
    Whole,
    /// `write_raw` stores field by field (a large structure, built in place).
    InPlace,
}

/// The whole declaration.
pub struct Decl {
    /// The value struct as written, the attribute's own attributes removed.
    pub item: DeriveInput,
    /// The value type: the struct itself, or the remote type it mirrors.
    pub value: TokenStream,
    pub remote: bool,
    pub c_name: Ident,
    pub size: Expr,
    pub doc: LitStr,
    pub raw: Ident,
    pub raw_doc: Option<LitStr>,
    pub convert: Convert,
    /// Every member, in offset order.
    pub members: Vec<Member>,
    /// The path of the codec crate in the generated code: `crate`, or (`krate = …`) its name,
    /// for a declaration in a test of another crate.
    pub krate: Option<Path>,
    /// `serde = none`: the value's serde form is written by hand.
    pub no_serde: bool,
}

pub fn declaration(args: TokenStream, item: TokenStream) -> syn::Result<Decl> {
    let mut item: DeriveInput = syn::parse2(item)?;
    let mut decl = struct_args(args, &item)?;
    let mut members = Vec::new();
    let mut kept = Vec::new();
    for attr in item.attrs.drain(..) {
        if attr.path().is_ident("c_member") {
            members.push(attr.parse_args_with(|s: ParseStream| member(s, None, true))?);
        } else {
            kept.push(attr);
        }
    }
    item.attrs = kept;
    let Data::Struct(data) = &mut item.data else {
        return Err(Error::new(
            item.ident.span(),
            "#[c_struct] declares a struct",
        ));
    };
    let Fields::Named(fields) = &mut data.fields else {
        return Err(Error::new(
            item.ident.span(),
            "#[c_struct] needs named fields",
        ));
    };
    for field in fields.named.iter_mut() {
        let Some(ident) = field.ident.clone() else {
            return Err(Error::new(
                field.ty.span(),
                "#[c_struct] needs named fields",
            ));
        };
        let pos = field.attrs.iter().position(|a| a.path().is_ident("c"));
        let Some(pos) = pos else {
            return Err(Error::new(
                ident.span(),
                "every field needs #[c(OFFSET, CTYPE NAME)]",
            ));
        };
        let attr = field.attrs.remove(pos);
        let rust = Some((ident, field.ty.clone()));
        let mut m = attr.parse_args_with(|s: ParseStream| member(s, rust, false))?;
        m.doc = doc_of(&field.attrs);
        members.push(m);
    }
    members.sort_by_key(|m| m.offset);
    decl.members = members;
    decl.item = item;
    Ok(decl)
}

/// `c_name, size = EXPR, doc = "…", raw = Ident, raw_doc = "…", convert = …, remote = Path`.
fn struct_args(args: TokenStream, item: &DeriveInput) -> syn::Result<Decl> {
    let mut decl = Decl {
        item: item.clone(),
        value: quote::quote!(#item.ident),
        remote: false,
        c_name: Ident::new("_", Span::call_site()),
        size: syn::parse_quote!(0),
        doc: LitStr::new("", Span::call_site()),
        raw: quote::format_ident!("{}Raw", item.ident),
        raw_doc: None,
        convert: Convert::Whole,
        members: Vec::new(),
        krate: None,
        no_serde: false,
    };
    let ident = &item.ident;
    decl.value = quote::quote!(#ident);
    let (mut size, mut doc) = (false, false);
    let parser = |s: ParseStream| -> syn::Result<()> {
        decl.c_name = s.parse()?;
        while !s.is_empty() {
            s.parse::<Token![,]>()?;
            if s.is_empty() {
                break;
            }
            let key: Ident = s.parse()?;
            s.parse::<Token![=]>()?;
            match key.to_string().as_str() {
                "size" => (decl.size, size) = (s.parse()?, true),
                "doc" => (decl.doc, doc) = (s.parse()?, true),
                "raw" => decl.raw = s.parse()?,
                "raw_doc" => decl.raw_doc = Some(s.parse()?),
                "convert" => {
                    let how: Ident = s.parse()?;
                    decl.convert = match how.to_string().as_str() {
                        "none" => Convert::None,
                        "in_place" => Convert::InPlace,
                        _ => return Err(Error::new(how.span(), "convert = none | in_place")),
                    };
                }
                "krate" => decl.krate = Some(s.parse()?),
                "serde" => {
                    let how: Ident = s.parse()?;
                    if how != "none" {
                        return Err(Error::new(how.span(), "serde = none"));
                    }
                    decl.no_serde = true;
                }
                "remote" => {
                    let path: Path = s.parse()?;
                    decl.value = quote::quote!(#path);
                    decl.remote = true;
                    if let Some(last) = path.segments.last()
                        && decl.raw == quote::format_ident!("{}Raw", item.ident)
                    {
                        decl.raw = quote::format_ident!("{}Raw", last.ident);
                    }
                }
                _ => return Err(Error::new(key.span(), "unknown #[c_struct] argument")),
            }
        }
        Ok(())
    };
    parser.parse2(args)?;
    if !size || !doc {
        return Err(Error::new(
            item.ident.span(),
            "#[c_struct] needs size = … and doc = \"…\"",
        ));
    }
    Ok(decl)
}

/// `OFFSET, CTYPE NAME[LEN] in GROUP, options…` (see the crate docs).
fn member(s: ParseStream, rust: Option<(Ident, syn::Type)>, unheld: bool) -> syn::Result<Member> {
    let offset_lit: LitInt = s.parse()?;
    let offset = offset_lit.base10_parse()?;
    s.parse::<Token![,]>()?;
    let ctype = if s.peek(Token![struct]) {
        s.parse::<Token![struct]>()?;
        CType::Struct(s.parse()?)
    } else {
        let c: Ident = s.parse()?;
        let (zerocopy, field_type) = match c.to_string().as_str() {
            "__u8" => (None, "U8"),
            "__u16" => (Some("U16"), "U16"),
            "__u32" => (Some("U32"), "U32"),
            "__u64" => (Some("U64"), "U64"),
            "__s32" => (Some("I32"), "S32"),
            "__s64" => (Some("I64"), "S64"),
            _ => return Err(Error::new(c.span(), "a C type: __u8 … __s64 or struct T")),
        };
        CType::Int {
            zerocopy,
            field_type,
        }
    };
    let name: Ident = s.parse()?;
    let mut len = None;
    if s.peek(syn::token::Bracket) {
        let inner;
        syn::bracketed!(inner in s);
        len = Some(if inner.peek(LitInt) {
            Len::Lit(inner.parse()?)
        } else {
            Len::Const(inner.parse()?)
        });
    }
    let mut group = None;
    if s.peek(Token![in]) {
        s.parse::<Token![in]>()?;
        group = Some(s.parse()?);
    }
    let mut doc = String::new();
    let mut display = None;
    let mut shown = None;
    let (mut index, mut zero) = (None, None);
    while s.peek(Token![,]) {
        s.parse::<Token![,]>()?;
        if s.peek(LitStr) && unheld {
            doc = s.parse::<LitStr>()?.value();
            continue;
        }
        let hint = Ident::parse_any(s)?;
        if s.peek(Token![=]) {
            s.parse::<Token![=]>()?;
            match hint.to_string().as_str() {
                "index" => index = Some(s.parse()?),
                "zero" => zero = Some(s.parse()?),
                other => {
                    let msg = format!(
                        "`{other} = …`: no such option; the options with a value are \
                         `index = EXPR` and `zero = \"…\"`"
                    );
                    return Err(Error::new(hint.span(), msg));
                }
            }
            continue;
        }
        match (shown_of(&hint), &shown) {
            (Some(_), Some((first, _))) => {
                let msg = format!(
                    "`{hint}`: the member is already `{first}`; give one of shown, detail, hidden"
                );
                return Err(Error::new(hint.span(), msg));
            }
            (Some(v), None) => shown = Some((hint.to_string(), v)),
            (None, _) => display = Some(display_of(&hint)?),
        }
    }
    if !s.is_empty() {
        return Err(s.error("expected `, option`"));
    }
    let mut m = Member {
        offset,
        offset_lit,
        ctype,
        name,
        len,
        group,
        doc,
        display: "Decimal",
        // Padding, reserved and framing members say nothing to a reader unless declared shown.
        shown: if unheld { "Never" } else { "Always" },
        index,
        zero,
        rust,
    };
    m.display = display.unwrap_or_else(|| default_display(&m));
    if let Some((_, v)) = shown {
        m.shown = v;
    }
    Ok(m)
}

/// The `Shown` variant of a hint, or `None` for a display hint.
fn shown_of(hint: &Ident) -> Option<&'static str> {
    Some(match hint.to_string().as_str() {
        "shown" => "Always",
        "detail" => "InDetail",
        "hidden" => "Never",
        _ => return None,
    })
}

fn display_of(hint: &Ident) -> syn::Result<&'static str> {
    Ok(match hint.to_string().as_str() {
        "decimal" => "Decimal",
        "hex" => "Hex",
        "octal" => "Octal",
        "flags" => "Flags",
        "enum" => "Enum",
        "errno" => "Errno",
        "fid" => "Fid",
        "bytes" => "Bytes",
        "text" => "Text",
        "nested" => "Struct",
        _ => {
            return Err(Error::new(
                hint.span(),
                "a display hint (decimal, hex, octal, flags, enum, errno, fid, bytes, text, \
                 nested) or who shows it (shown, detail, hidden)",
            ));
        }
    })
}

/// The hint a member gets when its declaration gives none: from its C type and the value's
/// type (a plain integer prints in decimal, any other integer type is a flags set).
fn default_display(m: &Member) -> &'static str {
    match (&m.ctype, &m.rust) {
        (_, None) => "Hex",
        (CType::Struct(s), _) if s == "LuFid" => "Fid",
        (CType::Struct(s), _) if s == "LustreHandle" => "Hex",
        (CType::Struct(_), _) => "Struct",
        (
            CType::Int {
                field_type: "U8", ..
            },
            _,
        ) if m.len.is_some() => "Bytes",
        (CType::Int { .. }, Some((_, ty))) if is_plain_int(ty) => "Decimal",
        (CType::Int { .. }, Some(_)) => "Flags",
    }
}

fn is_plain_int(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Array(a) => is_plain_int(&a.elem),
        syn::Type::Path(p) => p.path.get_ident().is_some_and(|i| {
            ["u8", "u16", "u32", "u64", "i32", "i64"].contains(&i.to_string().as_str())
        }),
        _ => false,
    }
}

/// A field's `///` lines, trimmed and joined by spaces: the member's one-line doc.
fn doc_of(attrs: &[Attribute]) -> String {
    let mut lines = Vec::new();
    for a in attrs {
        if let syn::Meta::NameValue(nv) = &a.meta
            && nv.path.is_ident("doc")
            && let Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
        {
            let line = s.value();
            if !line.trim().is_empty() {
                lines.push(line.trim().to_string());
            }
        }
    }
    lines.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(tokens: &str) -> syn::Result<Member> {
        let rust = Some((Ident::new("v", Span::call_site()), syn::parse_quote!(u32)));
        let ts: TokenStream = tokens.parse().expect("tokens");
        (|s: ParseStream| member(s, rust, false)).parse2(ts)
    }

    fn unheld(tokens: &str) -> syn::Result<Member> {
        let ts: TokenStream = tokens.parse().expect("tokens");
        (|s: ParseStream| member(s, None, true)).parse2(ts)
    }

    /// A held member is shown to everyone, an unheld one to no one, unless the declaration
    /// says otherwise; the option may stand anywhere among the others.
    #[test]
    fn who_shows_a_member() {
        assert_eq!(held("0, __u32 a_x").unwrap().shown, "Always");
        assert_eq!(held("0, __u32 a_x, hex, detail").unwrap().shown, "InDetail");
        assert_eq!(held("0, __u32 a_x, hidden, hex").unwrap().display, "Hex");
        assert_eq!(held("0, __u32 a_x, hidden").unwrap().shown, "Never");
        assert_eq!(
            unheld("0, __u32 a_pad, \"padding\"").unwrap().shown,
            "Never"
        );
        let framing = unheld("0, __u32 a_count, decimal, shown, \"count\"").unwrap();
        assert_eq!((framing.shown, framing.doc.as_str()), ("Always", "count"));
    }

    #[test]
    fn two_levels_are_refused() {
        let e = held("0, __u32 a_x, shown, detail").err().expect("refused");
        assert!(
            e.to_string().contains(
                "`detail`: the member is already `shown`; give one of shown, detail, hidden"
            ),
            "{e}"
        );
    }

    /// `index = EXPR` and `zero = "…"` are kept as written.
    #[test]
    fn index_names_and_zero() {
        let m = held("48, __u32 a_lim[N], index = NAMES, zero = \"not requested\"").unwrap();
        let index = m.index.as_ref().map(|e| quote::quote!(#e).to_string());
        assert_eq!(index.as_deref(), Some("NAMES"));
        assert_eq!(m.zero.map(|z| z.value()).as_deref(), Some("not requested"));
        let e = held("0, __u32 a_x, other = 1").err().expect("refused");
        assert!(
            e.to_string().starts_with("`other = …`: no such option"),
            "{e}"
        );
        assert!(held("0, __u32 a_x").unwrap().index.is_none());
    }
}
