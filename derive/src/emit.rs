//! Writes what a declaration generates (see the crate docs).

use crate::parse::{CType, Convert, Decl, Len, Member};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

pub fn all(d: &Decl) -> TokenStream {
    let value = if d.remote {
        TokenStream::new()
    } else {
        value_struct(d)
    };
    let raw = raw_struct(d);
    let module = c_module(d);
    let convert = convert(d);
    let (v, c_name) = (&d.value, &d.c_name);
    let generated = quote! {
        #raw
        #module
        impl #v {
            /// The structure as C declares it: name, size and every member.
            pub const LAYOUT: &'static crate::wire::layout::Layout = #c_name::LAYOUT;
        }
        #convert
    };
    let generated = match &d.krate {
        Some(k) => rebase(generated, &quote!(#k)),
        None => generated,
    };
    quote! {
        #value
        #generated
    }
}

/// `tokens` with every `crate` path root replaced by `krate` (the codec's name outside it).
fn rebase(tokens: TokenStream, krate: &TokenStream) -> TokenStream {
    use proc_macro2::{Group, TokenTree};
    tokens
        .into_iter()
        .flat_map(|t| match t {
            TokenTree::Ident(i) if i == "crate" => krate.clone().into_iter().collect::<Vec<_>>(),
            TokenTree::Group(g) => {
                let mut n = Group::new(g.delimiter(), rebase(g.stream(), krate));
                n.set_span(g.span());
                vec![TokenTree::Group(n)]
            }
            t => vec![t],
        })
        .collect()
}

/// `lr_type`, or `l_resource.lr_type` for a member of an inlined structure.
fn path(m: &Member) -> String {
    match &m.group {
        Some(g) => format!("{g}.{}", m.name),
        None => m.name.to_string(),
    }
}

fn len_tokens(l: &Len) -> TokenStream {
    match l {
        Len::Const(c) => quote!(#c),
        Len::Lit(n) => quote!(#n),
    }
}

/// The zerocopy type of one element, in byte order `O`.
fn elem_ty(m: &Member) -> TokenStream {
    match &m.ctype {
        CType::Int {
            zerocopy: Some(z), ..
        } => {
            let z = Ident::new(z, Span::call_site());
            quote!(zerocopy::byteorder::#z<O>)
        }
        CType::Int { zerocopy: None, .. } => quote!(u8),
        CType::Struct(s) => quote!(<#s as crate::wire::WireStruct>::Raw<O>),
    }
}

fn raw_ty(m: &Member) -> TokenStream {
    let elem = elem_ty(m);
    match &m.len {
        Some(l) => {
            let l = len_tokens(l);
            quote!([#elem; #l])
        }
        None => elem,
    }
}

fn field_type(m: &Member) -> TokenStream {
    match &m.ctype {
        CType::Int { field_type, .. } => {
            let t = Ident::new(field_type, Span::call_site());
            quote!(crate::wire::layout::FieldType::#t)
        }
        CType::Struct(s) => quote!(crate::wire::layout::FieldType::Struct(
            <#s as crate::wire::WireStruct>::LAYOUT
        )),
    }
}

fn is_u8(m: &Member) -> bool {
    matches!(m.ctype, CType::Int { zerocopy: None, .. })
}

/// An integer array read element by element (a `__u8` array is one value: bytes).
fn is_ints(m: &Member) -> bool {
    matches!(
        m.ctype,
        CType::Int {
            zerocopy: Some(_),
            ..
        }
    ) && m.len.is_some()
}

/// The doc of a raw member and of its `FieldAt`: `` `path`: doc ``.
fn raw_doc(m: &Member) -> String {
    format!("`{}`: {}", path(m), m.doc)
}

fn value_struct(d: &Decl) -> TokenStream {
    let mut item = d.item.clone();
    if d.krate.is_some() || d.no_serde {
        // Written by hand, or a test's structure in another crate (which has no such feature).
        return quote!(#item);
    }
    item.attrs.push(syn::parse_quote!(
        #[cfg_attr(
            feature = "serde",
            derive(serde::Serialize, serde::Deserialize),
            serde(deny_unknown_fields)
        )]
    ));
    if let syn::Data::Struct(data) = &mut item.data {
        for field in data.fields.iter_mut() {
            let Some(m) = d.members.iter().find(|m| match (&m.rust, &field.ident) {
                (Some((r, _)), Some(i)) => r == i,
                _ => false,
            }) else {
                continue;
            };
            let name = m.name.to_string();
            // The C member's name leads the field's docs (one paragraph with them).
            let c = format!("`{}`:", path(m));
            field.attrs.insert(0, syn::parse_quote!(#[doc = #c]));
            field.attrs.push(syn::parse_quote!(
                #[cfg_attr(feature = "serde", serde(rename = #name))]
            ));
        }
    }
    quote!(#item)
}

fn raw_struct(d: &Decl) -> TokenStream {
    let raw = &d.raw;
    let doc = match &d.raw_doc {
        Some(s) => s.value(),
        None => format!("`struct {}` in byte order `O`.", d.c_name),
    };
    let size = &d.size;
    let names = d.members.iter().map(|m| &m.name);
    let tys = d.members.iter().map(raw_ty);
    let docs = d.members.iter().map(raw_doc);
    let offsets = d.members.iter().map(|m| &m.offset_lit);
    let names2 = d.members.iter().map(|m| &m.name);
    let accessors = d.members.iter().map(accessor);
    quote! {
        #[doc = #doc]
        #[derive(
            Debug,
            Clone,
            Copy,
            PartialEq,
            Eq,
            zerocopy::FromBytes,
            zerocopy::IntoBytes,
            zerocopy::KnownLayout,
            zerocopy::Immutable,
            zerocopy::Unaligned
        )]
        #[repr(C)]
        pub struct #raw<O: zerocopy::ByteOrder> {
            #( #[doc = #docs] pub #names: #tys, )*
        }

        // The layout as declared: every offset, the size, no alignment (the Rust form of
        // Lustre's wiretest).
        const _: () = {
            type R = #raw<zerocopy::LittleEndian>;
            assert!(core::mem::size_of::<R>() == #size);
            assert!(core::mem::align_of::<R>() == 1);
            #( assert!(core::mem::offset_of!(R, #names2) == #offsets); )*
        };

        /// Typed reads of the members, straight from the received bytes (a rule checks a
        /// structure in place instead of converting it first).
        impl<O: zerocopy::ByteOrder> #raw<O> {
            #( #accessors )*
        }
    }
}

/// The raw integer `x` (an element) as a `u64`.
fn get(m: &Member, x: TokenStream) -> TokenStream {
    if is_u8(m) {
        quote!((#x as u64))
    } else {
        quote!((#x.get() as u64))
    }
}

/// A raw element from the `u64` `v`.
fn new(m: &Member, v: TokenStream) -> TokenStream {
    if is_u8(m) {
        quote!((#v as u8))
    } else {
        let e = elem_ty(m);
        quote!(<#e>::new(#v as _))
    }
}

fn accessor(m: &Member) -> TokenStream {
    let Some((rust, ty)) = &m.rust else {
        return TokenStream::new();
    };
    let name = &m.name;
    let doc = format!("`{name}` as its value.");
    let body = match (&m.ctype, &m.len) {
        (CType::Struct(_), Some(_)) => return TokenStream::new(),
        (CType::Struct(_), None) => {
            quote!(<#ty as crate::wire::WireStruct>::from_raw::<O>(&self.#name))
        }
        (CType::Int { .. }, Some(l)) if is_u8(m) => {
            let l = len_tokens(l);
            quote!(<#ty as crate::wire::table::ByteField<{ #l }>>::from_bytes(self.#name))
        }
        (CType::Int { .. }, Some(_)) => {
            let g = get(m, quote!(x));
            quote!(self.#name.map(|x| crate::flags::WireBits::from_u64(#g)))
        }
        (CType::Int { .. }, None) => {
            let g = get(m, quote!(self.#name));
            quote!(<#ty as crate::flags::WireBits>::from_u64(#g))
        }
    };
    quote! {
        #[doc = #doc]
        #[inline(always)]
        pub fn #rust(&self) -> #ty { #body }
    }
}

fn c_module(d: &Decl) -> TokenStream {
    let c_name = &d.c_name;
    let c_str = c_name.to_string();
    let (size, doc) = (&d.size, &d.doc);
    let mod_doc = format!(
        "`struct {c_str}`: its [`Layout`](crate::wire::layout::Layout) and where each member \
         lies ([`FieldAt`](crate::wire::layout::FieldAt)), for errors."
    );
    let fields = d.members.iter().map(layout_field);
    let ats = d.members.iter().map(|m| field_at(&c_str, m));
    quote! {
        #[doc = #mod_doc]
        #[allow(non_upper_case_globals, clippy::module_inception)]
        pub mod #c_name {
            #[allow(unused_imports)]
            use super::*;
            /// The byte order the sizes below are measured in (any: they do not depend on it).
            type O = zerocopy::LittleEndian;

            /// The structure as C declares it.
            pub const LAYOUT: &crate::wire::layout::Layout = &crate::wire::layout::Layout {
                name: #c_str,
                size: #size,
                doc: #doc,
                fields: &[ #( #fields, )* ],
            };

            #( #ats )*
        }
    }
}

fn layout_field(m: &Member) -> TokenStream {
    let name = m.name.to_string();
    let rust = match &m.rust {
        Some((r, _)) => {
            let r = r.to_string();
            quote!(Some(#r))
        }
        None => quote!(None),
    };
    let off = &m.offset_lit;
    let raw = raw_ty(m);
    let ty = field_type(m);
    let array = match &m.len {
        Some(Len::Const(c)) => {
            let s = c.to_string();
            quote!(Some(crate::wire::layout::ArrayLen { c_name: #s, len: #c }))
        }
        Some(Len::Lit(n)) => quote!(Some(crate::wire::layout::ArrayLen { c_name: "", len: #n })),
        None => quote!(None),
    };
    let names = match (&m.rust, &m.ctype, &m.len) {
        (Some((_, ty)), CType::Int { .. }, None) => {
            quote!(<#ty as crate::flags::WireBits>::NAMES)
        }
        _ => quote!(None),
    };
    let doc = &m.doc;
    let display = Ident::new(m.display, Span::call_site());
    let shown = Ident::new(m.shown, Span::call_site());
    let index = match &m.index {
        Some(p) => quote!(&#p),
        None => quote!(&[]),
    };
    let zero = match &m.zero {
        Some(z) => quote!(Some(#z)),
        None => quote!(None),
    };
    quote! {
        crate::wire::layout::Field {
            name: #name,
            rust: #rust,
            offset: #off,
            size: core::mem::size_of::<#raw>(),
            ty: #ty,
            array: #array,
            names: #names,
            doc: #doc,
            display: crate::wire::layout::Display::#display,
            shown: crate::wire::layout::Shown::#shown,
            index_names: #index,
            zero: #zero,
        }
    }
}

fn field_at(c_str: &str, m: &Member) -> TokenStream {
    let name = &m.name;
    let p = path(m);
    let doc = raw_doc(m);
    let off = &m.offset_lit;
    let ty = field_type(m);
    let elements = match &m.len {
        // A literal length: the names are written here.
        Some(Len::Lit(n)) if is_ints(m) => {
            let n: usize = n.base10_parse().unwrap_or(0);
            let names = (0..n).map(|i| format!("{p}[{i}]"));
            quote!(&[ #( #names ),* ])
        }
        Some(l) if is_ints(m) => {
            let l = len_tokens(l);
            quote!(crate::wire::table::element_names!(#p, #l))
        }
        _ => quote!(&[]),
    };
    quote! {
        #[doc = #doc]
        pub const #name: crate::wire::layout::FieldAt = crate::wire::layout::FieldAt {
            structure: #c_str,
            name: #p,
            offset: #off,
            elem_size: #ty.size(),
            elements: #elements,
        };
    }
}

fn convert(d: &Decl) -> TokenStream {
    if d.convert == Convert::None {
        return TokenStream::new();
    }
    let (v, raw, c_name) = (&d.value, &d.raw, &d.c_name);
    let held: Vec<_> = d.members.iter().filter_map(|m| m.rust.as_ref()).collect();
    let rust = held.iter().map(|(r, _)| r);
    let rust2 = held.iter().map(|(r, _)| r);
    let to_raw = if d.convert == Convert::InPlace {
        let writes = d.members.iter().map(write);
        quote! {
            fn to_raw<O: zerocopy::ByteOrder>(&self) -> #raw<O> {
                // One list of the stores, in `write_raw`; it overwrites every byte of the
                // zeroed copy.
                let mut raw: #raw<O> = zerocopy::FromZeros::new_zeroed();
                self.write_raw::<O>(&mut raw);
                raw
            }

            // Field by field, so that `write_at` builds the structure in place: built on the
            // stack and copied, a large one costs a call of memcpy.
            #[inline]
            fn write_raw<O: zerocopy::ByteOrder>(&self, dst: &mut #raw<O>) {
                #( #writes; )*
            }
        }
    } else {
        let names = d.members.iter().map(|m| &m.name);
        let puts = d.members.iter().map(put);
        quote! {
            #[inline]
            fn to_raw<O: zerocopy::ByteOrder>(&self) -> #raw<O> {
                #raw { #( #names: #puts, )* }
            }
        }
    };
    quote! {
        impl crate::wire::WireStruct for #v {
            const LAYOUT: &'static crate::wire::layout::Layout = #c_name::LAYOUT;
            type Raw<O: zerocopy::ByteOrder> = #raw<O>;

            #[inline]
            fn from_raw<O: zerocopy::ByteOrder>(r: &#raw<O>) -> Self {
                #v { #( #rust: r.#rust2(), )* }
            }

            #to_raw
        }
    }
}

/// The raw form of a member's value (`self` is the value), in byte order `O`.
fn put(m: &Member) -> TokenStream {
    let Some((rust, ty)) = &m.rust else {
        return quote!(zerocopy::FromZeros::new_zeroed());
    };
    match (&m.ctype, &m.len) {
        (CType::Struct(_), Some(_)) => {
            quote!(compile_error!(
                "an array of structures is converted by hand (convert = none)"
            ))
        }
        (CType::Struct(_), None) => {
            quote!(<#ty as crate::wire::WireStruct>::to_raw::<O>(&self.#rust))
        }
        (CType::Int { .. }, Some(l)) if is_u8(m) => {
            let l = len_tokens(l);
            quote!(<#ty as crate::wire::table::ByteField<{ #l }>>::to_bytes(&self.#rust))
        }
        (CType::Int { .. }, Some(_)) => {
            let n = new(m, quote!(crate::flags::WireBits::to_u64(x)));
            quote!(self.#rust.map(|x| #n))
        }
        (CType::Int { .. }, None) => new(m, quote!(crate::flags::WireBits::to_u64(self.#rust))),
    }
}

/// The store of a member's value over `dst`, in byte order `O`.
fn write(m: &Member) -> TokenStream {
    let name = &m.name;
    match (&m.rust, &m.ctype) {
        (Some((rust, _)), CType::Int { .. }) if is_ints(m) => {
            let n = new(m, quote!(crate::flags::WireBits::to_u64(x)));
            quote! {
                for (d, &x) in dst.#name.iter_mut().zip(&self.#rust) {
                    *d = #n;
                }
            }
        }
        (Some((rust, ty)), CType::Struct(_)) if m.len.is_none() => {
            quote!(<#ty as crate::wire::WireStruct>::write_raw::<O>(&self.#rust, &mut dst.#name))
        }
        _ => {
            let p = put(m);
            quote!(dst.#name = #p)
        }
    }
}
