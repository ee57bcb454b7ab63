//! The text `lfs getstripe -v` and `lfs getstripe --yaml` print for a `trusted.lov`
//! (liblustreapi's `lov_dump_user_lmm_header`, `lov_dump_user_lmm_v1v3`, `lov_dump_comp_v1*`,
//! `lov_dump_foreign_lmm`, `lov_dump_hsm_lmm`; the line-by-line account is
//! `docs/reference/lfs-output.md`).
//!
//! What the payload does not hold comes from the caller: the path line, a directory's FID
//! (`lmm_fid` of a directory default) and the MDT of a Data-on-MDT file (`lmm_mdt_index`).
//! Without them those lines are left out; nothing is made up.

use super::lov::{
    LOV_MAGIC_COMP_V1, LOV_MAGIC_SPECIFIC, LayoutOf, LcmeFlags, LovBlobView, LovCompView,
    LovComponentView, LovMdView, LovPattern, LovView,
};
use super::{ForeignView, PoolName};
use crate::wire::LuFid;
use core::fmt;

type Out<'f, 'g> = &'f mut fmt::Formatter<'g>;

/// `lfs getstripe -v` (or, with [`GetStripe::yaml`], `lfs getstripe --yaml`) text of a
/// `trusted.lov`, as lfs prints it after the MDT has sent it (an on-disk `LOV_MAGIC_SEL` prints
/// as `LOV_MAGIC_COMP_V1`, as `lod_xattr_get` converts it).
#[derive(Debug, Clone, Copy)]
pub struct GetStripe<'a> {
    lov: LovView<'a>,
    layout_of: Option<LayoutOf>,
    path: Option<&'a str>,
    fid: Option<LuFid>,
    mdt_index: Option<u32>,
    yaml: bool,
}

impl<'a> GetStripe<'a> {
    pub(super) fn new(lov: LovView<'a>) -> Self {
        GetStripe {
            lov,
            layout_of: None,
            path: None,
            fid: None,
            mdt_index: None,
            yaml: false,
        }
    }
    /// Whose layout it is; by default [`LovView::layout_of_guess`].
    pub fn layout_of(mut self, of: LayoutOf) -> Self {
        self.layout_of = Some(of);
        self
    }
    /// The path lfs was given: printed as the first line (not in yaml).
    pub fn path(mut self, path: &'a str) -> Self {
        self.path = Some(path);
        self
    }
    /// The directory's FID, which lfs prints as a directory default's `lmm_fid`.
    pub fn fid(mut self, fid: LuFid) -> Self {
        self.fid = Some(fid);
        self
    }
    /// The MDT holding a Data-on-MDT file, which the client puts in `lmm_mdt_index`.
    pub fn mdt_index(mut self, mdt: u32) -> Self {
        self.mdt_index = Some(mdt);
        self
    }
    /// `lfs getstripe --yaml` instead of `lfs getstripe -v`.
    pub fn yaml(mut self, yaml: bool) -> Self {
        self.yaml = yaml;
        self
    }
    /// The layout kind used: the one given, else the guess.
    pub fn resolved_layout_of(&self) -> LayoutOf {
        self.layout_of.unwrap_or_else(|| self.lov.layout_of_guess())
    }
}

/// C's `%#x`: no `0x` for zero. Honours width and alignment.
pub(super) struct CHex(pub u64);
impl fmt::Display for CHex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return f.pad("0");
        }
        let mut b = [0u8; 18];
        b[0] = b'0';
        b[1] = b'x';
        let digits = (64 - self.0.leading_zeros()).div_ceil(4) as usize;
        for i in 0..digits {
            let nib = ((self.0 >> (4 * (digits - 1 - i))) & 0xf) as u8;
            b[2 + i] = if nib < 10 {
                b'0' + nib
            } else {
                b'a' + nib - 10
            };
        }
        // Only ASCII was written.
        f.pad(core::str::from_utf8(&b[..2 + digits]).unwrap_or("?"))
    }
}

/// `DFID` (`[%#llx:0x%x:0x%x]`) or `DFID_NOBRACE`.
pub(super) struct Dfid(pub LuFid, pub bool);
impl fmt::Display for Dfid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Dfid(fid, brace) = self;
        if *brace {
            f.write_str("[")?;
        }
        write!(f, "{}:{:#x}:{:#x}", CHex(fid.seq), fid.oid, fid.ver)?;
        if *brace {
            f.write_str("]")?;
        }
        Ok(())
    }
}

/// `llapi_lov_pattern_string`: the names in table order, and for leftover bits
/// `unknown_%x`, which replaces what was written before it (the C `snprintf` restarts the
/// buffer), with a leading comma when a name was found.
fn pattern_string(f: Out<'_, '_>, p: LovPattern) -> fmt::Result {
    const NAMES: [(u32, &str); 10] = [
        (0x502, "bad"),
        (0x1, "raid0"),
        (0x2, "raid1"),
        (0x4, "parity"),
        (0x100, "mdt"),
        (0x200, "overstriped"),
        (0x400, "foreign"),
        (0x800, "compress"),
        (0x4000_0000, "hole"),
        (0x8000_0000, "released"),
    ];
    if p == LovPattern::DEFAULT {
        return f.write_str("default");
    }
    let mut rest = p.0;
    let mut found = false;
    for (bit, _) in NAMES {
        if rest & bit == bit {
            rest &= !bit;
            found = true;
        }
    }
    if rest != 0 {
        return write!(f, "{}unknown_{rest:x}", if found { "," } else { "" });
    }
    let mut rest = p.0;
    let mut first = true;
    for (bit, name) in NAMES {
        if rest & bit == bit {
            if !first {
                f.write_str(",")?;
            }
            f.write_str(name)?;
            rest &= !bit;
            first = false;
        }
    }
    Ok(())
}

/// `lcme_flags2str` with the `comp_flags_table` of `lustreapi.h`.
fn comp_flags_string(f: Out<'_, '_>, flags: LcmeFlags) -> fmt::Result {
    const NAMES: [(u32, &str); 13] = [
        (0x10, "init"),
        (0x1, "stale"),
        (0x6, "prefer"),
        (0x2, "prefrd"),
        (0x4, "prefwr"),
        (0x8, "offline"),
        (0x20, "nosync"),
        (0x40, "extension"),
        (0x80, "parity"),
        (0x100, "compress"),
        (0x200, "partial"),
        (0x400, "nocompr"),
        (0x4000_0000, "link_id"),
    ];
    let mut rest = flags.0;
    if rest == 0 {
        return f.write_str("0");
    }
    let mut found = false;
    for (bit, name) in NAMES {
        if rest & bit == bit {
            if found {
                f.write_str(",")?;
            }
            f.write_str(name)?;
            rest &= !bit;
            found = true;
        }
    }
    if rest != 0 {
        write!(f, "{}{:#x}", if found { "," } else { "" }, rest)?;
    }
    Ok(())
}

/// `llapi_layout_flags_string`: the FLR state and the PCC read-only bit.
fn lcm_flags_string(flags: u16) -> &'static str {
    match flags & 0xB {
        1 => "ro",
        2 => "wp",
        3 => "sp",
        9 => "ro,pccro",
        10 => "wp,pccro",
        11 => "sp,pccro",
        _ => "0",
    }
}

/// `lu_foreign_types` of liblustreapi.c.
fn foreign_type_name(t: u32) -> &'static str {
    match t {
        0 => "none",
        1 => "posix",
        2 => "pccrw",
        3 => "pccro",
        4 => "S3",
        0xda05 => "symlink",
        _ => "unknown",
    }
}

/// `%.*s` of `len` bytes: up to the first NUL. Printable ASCII as is, other bytes escaped
/// (lfs writes them raw).
fn c_string(f: Out<'_, '_>, bytes: &[u8]) -> fmt::Result {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    super::write_escaped(f, &bytes[..end])
}

/// A composite entry's timestamp as `'%FT%T%z'`, in UTC (lfs uses its local time zone; with
/// `TZ=UTC` the two agree).
fn timestamp(f: Out<'_, '_>, secs: u64) -> fmt::Result {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Days to civil date (proleptic Gregorian), after Howard Hinnant's algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    write!(
        f,
        "'{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}+0000'",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// How one plain layout is printed.
#[derive(Clone, Copy)]
struct Sub {
    dir: bool,
    indent: bool,
    yaml: bool,
    detail: bool,
    skip_objs: bool,
    extension: bool,
}

impl GetStripe<'_> {
    /// `lov_dump_user_lmm_header`.
    fn header(&self, f: Out<'_, '_>, m: &LovMdView<'_>, s: Sub) -> fmt::Result {
        let sp = if s.indent { "      " } else { "" };
        let prefix = if s.dir { "" } else { "lmm_" };
        let oi = m.oi();
        if s.dir && oi.seq == super::lov::FID_SEQ_LOV_DEFAULT && !s.indent && s.detail {
            f.write_str("(Default) ")?;
        }
        if let (false, false, Some(p)) = (s.yaml, s.indent, self.path) {
            writeln!(f, "{p}")?;
        }
        if s.detail && !s.dir {
            writeln!(f, "{sp}lmm_magic:         0x{:08X}", m.magic())?;
            writeln!(f, "{sp}lmm_seq:           {}", CHex(oi.seq))?;
            writeln!(f, "{sp}lmm_object_id:     {}", CHex(oi.id))?;
            // An IGIF-looking FID for a 1.x `{inode, 0}`, the real FID otherwise.
            let fid = if oi.seq == 0 {
                LuFid::new(oi.id, 0, (oi.id >> 32) as u32)
            } else {
                LuFid::new(oi.seq, oi.id as u32, (oi.id >> 32) as u32)
            };
            writeln!(f, "{sp}lmm_fid:           {}", Dfid(fid, !s.yaml))?;
        } else if let (true, Some(fid)) = (s.detail, self.fid) {
            writeln!(f, "{sp}lmm_fid:           {}", Dfid(fid, !s.yaml))?;
        }
        let next = if !s.yaml && s.dir { " " } else { "\n" };
        let count = m.stripe_count() as i16;
        write!(
            f,
            "{sp}{prefix}stripe_count:  {}",
            if s.extension { 0 } else { count }
        )?;
        if s.extension {
            let ext = u64::from(m.stripe_size()) * 1024;
            write!(f, "{next}{sp}{prefix}extension_size: {ext}")?;
        } else {
            write!(f, "{next}{sp}{prefix}stripe_size:   {}", m.stripe_size())?;
        }
        write!(f, "{next}{sp}{prefix}pattern:       ")?;
        pattern_string(f, m.pattern())?;
        let mut sep = self.gen_and_offset(f, m, s, next)?;
        if let Some(pool) = m.pool_name().filter(|p| !pool_ignored(p)) {
            write!(f, "{sep}{sp}{prefix}pool:          {pool}")?;
            sep = next;
        }
        if !sep.is_empty() {
            f.write_str("\n")?;
        }
        Ok(())
    }

    /// The `layout_gen` and `stripe_offset` (or `mdt_index`) fields of the header; returns the
    /// separator that follows.
    fn gen_and_offset(
        &self,
        f: Out<'_, '_>,
        m: &LovMdView<'_>,
        s: Sub,
        next: &'static str,
    ) -> Result<&'static str, fmt::Error> {
        let sp = if s.indent { "      " } else { "" };
        let prefix = if s.dir { "" } else { "lmm_" };
        let mut sep = next;
        let dom = m.pattern().contains(LovPattern::MDT);
        // A file's DoM component reaches lfs with the MDT index in the union (`ll_lov_getstripe`
        // overwrites it), which is also what lfs prints as its layout generation.
        let file_dom = dom && !s.dir;
        if !s.dir {
            let gen_ = match (s.skip_objs, file_dom, self.mdt_index) {
                (true, _, _) => Some(0),
                (false, false, _) => Some(u32::from(m.stripe_offset())),
                (false, true, mdt) => mdt,
            };
            if let Some(g) = gen_ {
                write!(f, "{sep}{sp}{prefix}layout_gen:    {g}")?;
                sep = "\n";
            }
        }
        let label = if dom {
            "mdt_index:     "
        } else {
            "stripe_offset: "
        };
        let union = m.stripe_offset();
        let union_text = |f: Out<'_, '_>| {
            if union == 0xffff {
                f.write_str("-1")
            } else {
                write!(f, "{union}")
            }
        };
        if file_dom {
            if let Some(mdt) = self.mdt_index {
                write!(f, "{sep}{sp}{prefix}{label}{}", mdt as i32)?;
                sep = next;
            }
        } else if s.dir || s.skip_objs {
            write!(f, "{sep}{sp}{prefix}{label}")?;
            union_text(f)?;
            sep = next;
        } else if let Some(first) = m.objects().next() {
            write!(f, "{sep}{sp}{prefix}{label}{}", first.idx as i32)?;
            sep = next;
        }
        Ok(sep)
    }

    /// `lov_dump_user_lmm_v1v3`: the header, then the object table.
    fn v1v3(&self, f: Out<'_, '_>, m: &LovMdView<'_>, s: Sub) -> fmt::Result {
        self.header(f, m, s)?;
        let p = m.pattern();
        let file_objs =
            !s.dir && !p.contains(LovPattern::F_RELEASED) && !p.contains(LovPattern::MDT);
        let dir_objs = s.dir && m.magic() == LOV_MAGIC_SPECIFIC;
        if !s.skip_objs && (file_objs || dir_objs) {
            if s.indent {
                f.write_str("      lmm_objects:\n")?;
            } else if s.yaml {
                f.write_str("lmm_objects:\n")?;
            } else {
                f.write_str("\tobdidx\t\t objid\t\t objid\t\t group\n")?;
            }
            for (i, o) in m.objects().enumerate() {
                let fid = o.oi.to_fid(o.idx).unwrap_or(LuFid::ZERO);
                if s.yaml {
                    writeln!(f, "      - l_ost_idx: {}", o.idx as i32)?;
                    writeln!(f, "        l_fid:     {}", Dfid(fid, false))?;
                } else if s.indent {
                    writeln!(
                        f,
                        "      - {i:3}: {{ l_ost_idx: {:3}, l_fid: {} }}",
                        o.idx as i32,
                        Dfid(fid, true)
                    )?;
                } else if s.dir {
                    writeln!(
                        f,
                        "\t{:6}\t{:>14}\t{:>13}\t{:>14}",
                        o.idx, "N/A", "N/A", "N/A"
                    )?;
                } else {
                    let (oid, gr) = (o.oi.ostid_id(), o.oi.ostid_seq());
                    write!(f, "\t{:6}\t{oid:14}\t{:>13}\t", o.idx, CHex(oid))?;
                    // fid_seq_is_mdt0() or fid_seq_is_rsvd(): decimal; a FID sequence: hex.
                    if gr <= 11 {
                        writeln!(f, "{gr:14}")?;
                    } else {
                        writeln!(f, "{:>14}", CHex(gr))?;
                    }
                }
            }
        }
        if !s.yaml {
            f.write_str("\n")?;
        }
        Ok(())
    }

    /// `lov_dump_comp_v1`: the header, then each entry and its sub-layout.
    fn comp(&self, f: Out<'_, '_>, c: &LovCompView<'_>, dir: bool) -> fmt::Result {
        let (yaml, detail) = (self.yaml, !self.yaml);
        if let (false, Some(p)) = (yaml, self.path) {
            writeln!(f, "{p}")?;
        }
        if detail {
            f.write_str("composite_header:\n")?;
            writeln!(f, "  lcm_magic:         0x{LOV_MAGIC_COMP_V1:08X}")?;
            writeln!(f, "  lcm_size:          {}", c.wire_len())?;
            let flags = if dir {
                if c.mirror_count() > 0 { "mirrored" } else { "" }
            } else {
                lcm_flags_string(c.flags().0)
            };
            writeln!(f, "  lcm_flags:         {flags}")?;
        }
        let ind = if yaml { "" } else { "  " };
        writeln!(f, "{ind}lcm_layout_gen:    {}", c.layout_gen())?;
        writeln!(
            f,
            "{ind}lcm_mirror_count:  {}",
            u32::from(c.mirror_count()) + 1
        )?;
        writeln!(f, "{ind}lcm_entry_count:   {}", c.entry_count())?;
        f.write_str("components:\n")?;
        for comp in c.components() {
            let e = &comp.entry;
            entry(f, &comp, yaml)?;
            let init = e.flags.contains(LcmeFlags::INIT);
            match &comp.blob {
                LovBlobView::Foreign(v) if !dir => hsm(f, v)?,
                LovBlobView::Foreign(_) => {}
                LovBlobView::Md(m) => self.v1v3(
                    f,
                    m,
                    Sub {
                        dir,
                        indent: true,
                        yaml,
                        detail,
                        skip_objs: !init,
                        extension: e.flags.contains(LcmeFlags::EXTENSION),
                    },
                )?,
            }
        }
        Ok(())
    }
}

/// `lov_dump_comp_v1_entry`: one entry's lines, up to `sub_layout:`.
fn entry(f: Out<'_, '_>, c: &LovComponentView<'_>, yaml: bool) -> fmt::Result {
    let e = &c.entry;
    f.write_str("  - lcme_id:             ")?;
    if e.id == u32::MAX {
        f.write_str("N/A")?;
    } else {
        write!(f, "{}", e.id)?;
    }
    f.write_str("\n    lcme_mirror_id:      ")?;
    if e.id == u32::MAX {
        f.write_str("N/A")?;
    } else {
        write!(f, "{}", e.mirror_id())?;
    }
    f.write_str("\n    lcme_flags:          ")?;
    comp_flags_string(f, e.flags)?;
    if e.mirror_link_id() != 0 {
        write!(f, "\n    lcme_mirror_link_id: {:#x}", e.mirror_link_id())?;
    }
    if e.flags.contains(LcmeFlags::NOSYNC) || e.timestamp() != 0 {
        f.write_str("\n    lcme_timestamp:      ")?;
        if yaml {
            write!(f, "{}", e.timestamp())?;
        } else {
            timestamp(f, e.timestamp())?;
        }
    }
    if e.flags.contains(LcmeFlags::PARITY) {
        write!(f, "\n    lcme_dstripe_count:  {}", e.dstripe_count)?;
        write!(f, "\n    lcme_cstripe_count:  {}", e.cstripe_count)?;
    }
    write!(f, "\n    lcme_extent.e_start: {}", e.extent_start)?;
    if e.extent_end == u64::MAX {
        f.write_str("\n    lcme_extent.e_end:   EOF")?;
    } else {
        write!(f, "\n    lcme_extent.e_end:   {}", e.extent_end)?;
    }
    f.write_str("\n")?;
    if !yaml {
        writeln!(f, "    lcme_offset:         {}", c.offset)?;
        writeln!(f, "    lcme_size:           {}", c.size)?;
    }
    f.write_str("    sub_layout:\n")?;
    Ok(())
}

/// `lov_pool_is_ignored`: the pool name `ignore` is not printed.
fn pool_ignored(p: &PoolName) -> bool {
    p.is_empty() || p.as_bytes() == b"ignore"
}

/// `lov_dump_foreign_lmm` (`lfs getstripe -v`; yaml keeps only the value line).
pub(super) fn foreign(f: Out<'_, '_>, v: &ForeignView<'_>, detail: bool) -> fmt::Result {
    if detail {
        writeln!(f, "lfm_magic:         0x{:08X}", v.magic())?;
        writeln!(f, "lfm_length:          {}", v.value().len())?;
        let t = v.foreign_type().0;
        writeln!(f, "lfm_type:          0x{t:08X} ({})", foreign_type_name(t))?;
        writeln!(f, "lfm_flags:          0x{:08X}", v.flags())?;
    }
    f.write_str("lfm_value:     '")?;
    c_string(f, v.value())?;
    f.write_str("'\n\n")
}

/// `lov_dump_hsm_lmm`: a foreign (HSM) component of a file, six-space indent.
fn hsm(f: Out<'_, '_>, v: &ForeignView<'_>) -> fmt::Result {
    const SP: &str = "      ";
    const FLAGS: [(u32, &str); 9] = [
        (0x1, "exists"),
        (0x2, "dirty"),
        (0x4, "released"),
        (0x8, "archived"),
        (0x10, "norelease"),
        (0x20, "noarchive"),
        (0x40, "lost"),
        (0x80, "pccrw"),
        (0x100, "pccro"),
    ];
    let t = v.foreign_type().0;
    writeln!(f, "{SP}lhm_magic:         0x{:08X}", v.magic())?;
    writeln!(f, "{SP}lhm_pattern:       foreign")?;
    writeln!(f, "{SP}lhm_length:        {}", v.value().len())?;
    writeln!(
        f,
        "{SP}lhm_type:          0x{t:08X} ({})",
        foreign_type_name(t)
    )?;
    write!(f, "{SP}lhm_flags:         ")?;
    let flags = v.flags();
    if flags == 0 {
        f.write_str("0")?;
    } else {
        let mut found = false;
        for (bit, name) in FLAGS {
            if flags & bit != 0 {
                write!(f, "{}{name}", if found { "," } else { "" })?;
                found = true;
            }
        }
        write!(f, "{}{flags:#x}", if found { "," } else { "" })?;
    }
    f.write_str("\n")?;
    // lov_hsm_type_supported: posix, pccrw, pccro, S3.
    if !(1..=4).contains(&t) {
        return Ok(());
    }
    let val = v.value();
    let word = |at: usize| {
        val.get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
    };
    if let (Some(id), Some(ver)) = (word(0), word(8)) {
        writeln!(f, "{SP}lhm_archive_id:    {id}")?;
        writeln!(f, "{SP}lhm_archive_ver:   {ver}")?;
        f.write_str("      lhm_archive_uuid:  '")?;
        let uuid = &val[16..val.len().min(16 + 40)];
        c_string(f, uuid)?;
        f.write_str("'\n")?;
    }
    Ok(())
}

impl fmt::Display for GetStripe<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dir = self.resolved_layout_of() == LayoutOf::Dir;
        match &self.lov {
            LovView::Md(m) => self.v1v3(
                f,
                m,
                Sub {
                    dir,
                    indent: false,
                    yaml: self.yaml,
                    detail: !self.yaml,
                    skip_objs: false,
                    extension: false,
                },
            ),
            LovView::Comp(c) => self.comp(f, c, dir),
            // lfs prints no path line for a foreign file at the top level (fp_depth is 0).
            LovView::Foreign(v) => foreign(f, v, !self.yaml),
        }
    }
}

impl<'a> LovView<'a> {
    /// An `lfs getstripe -v` text renderer (options on [`GetStripe`]).
    pub fn getstripe(&self) -> GetStripe<'a> {
        GetStripe::new(*self)
    }
}
