//! The text `lfs getdirstripe -v` (and `-D -v`, `--yaml`) prints for a `trusted.lmv` and a
//! `trusted.dmv` (liblustreapi's `lmv_dump_user_lmm` and `lmv_dump_foreign_lmm`; the account is
//! `docs/reference/lfs-output.md` §7).
//!
//! lfs prints the `lmv_user_md` the client builds from the LMV (`LL_IOC_LMV_GETSTRIPE`): the
//! directory's FID, the MDT of each stripe and the MDT holding the master come from outside the
//! payload. Without them `lmv_fid` is left out, `lmv_stripe_offset` is the header's
//! `lmv_master_mdt_index` (which Lustre sets to the master's MDT), and a stripe row's MDT
//! column is `?`.

use super::dmv::{DefaultLmvView, LMV_USER_MAGIC};
use super::lmv::{LMV_MAGIC_STRIPE, LmvMdView, LmvView};
use super::lov_text::{CHex, Dfid, foreign};
use crate::wire::LuFid;
use core::fmt;

/// The hash type as lfs names it: the function (`mdt_hash_name`, else C `%#x`), then the flags
/// in lfs's order, then `unknown_%04x` of bits outside `LMV_HASH_FLAG_KNOWN`.
fn hash_type(f: &mut fmt::Formatter<'_>, h: u32) -> fmt::Result {
    const NAMES: [&str; 5] = ["none", "all_char", "fnv_1a_64", "crush", "crush2"];
    let (t, flags) = (h & 0xffff, h & !0xffff);
    match NAMES.get(t as usize) {
        Some(n) => f.write_str(n)?,
        None => write!(f, "{}", CHex(t.into()))?,
    }
    for (bit, name) in [
        (0x0100_0000, "overstriped"),
        (0x8000_0000, "migrating"),
        (0x2000_0000, "bad_type"),
        (0x1000_0000, "lost_lmv"),
        (0x0200_0000, "fixed"),
    ] {
        if flags & bit != 0 {
            write!(f, ",{name}")?;
        }
    }
    if flags & !0xbf00_0000 != 0 {
        write!(f, ",unknown_{:04x}", flags & !0xbf00_0000)?;
    }
    Ok(())
}

/// The fields of the `lmv_user_md` lfs is given.
struct Lum<'a, I> {
    magic: u32,
    stripe_count: i32,
    stripe_offset: u32,
    hash_type: u32,
    inherit: (u8, u8),
    pool: &'a [u8],
    objects: I,
}

/// `lmv_dump_user_lmm` with `VERBOSE_DEFAULT | VERBOSE_DETAIL` (or `VERBOSE_DEFAULT` in yaml).
fn dump<I: Iterator<Item = (Option<u32>, LuFid)>>(
    f: &mut fmt::Formatter<'_>,
    lum: Lum<'_, I>,
    dir_fid: Option<LuFid>,
    yaml: bool,
) -> fmt::Result {
    let user = lum.magic == LMV_USER_MAGIC;
    let next = if yaml { "\n" } else { " " };
    let mut sep = "";
    if !yaml {
        if let Some(fid) = dir_fid {
            write!(f, "lmv_fid: {}", Dfid(fid, false))?;
            sep = next;
        }
        write!(f, "{sep}lmv_magic: {}", CHex(lum.magic.into()))?;
        sep = next;
    }
    let pad = |long: &'static str| if yaml { long } else { "" };
    write!(f, "{sep}lmv_stripe_count: {}{}", pad(" "), lum.stripe_count)?;
    write!(f, "{next}lmv_stripe_offset: {}", lum.stripe_offset as i32)?;
    write!(f, "{next}lmv_hash_type: {}", pad("    "))?;
    hash_type(f, lum.hash_type)?;
    if user {
        let (mi, rr) = lum.inherit;
        let mi = match mi {
            0 => -1,
            255 => 0,
            n => i32::from(n),
        };
        let rr = match rr {
            255 => -1,
            0 => 0,
            n => i32::from(n),
        };
        write!(f, "{next}lmv_max_inherit: {}{mi}", pad("  "))?;
        write!(f, "{next}lmv_max_inherit_rr: {rr}")?;
    }
    if !lum.pool.is_empty() {
        let prefix = if user { "(Default)" } else { "" };
        write!(f, "{next}{prefix}lmv_pool: {}", pad("          "))?;
        super::write_escaped(f, lum.pool)?;
        f.write_str("  ")?;
    }
    if user {
        return f.write_str("\n");
    }
    f.write_str("\n")?;
    if yaml {
        f.write_str("lmv_objects:\n")?;
    } else if lum.stripe_count > 0 {
        f.write_str("mdtidx\t\t FID[seq:oid:ver]\n")?;
    }
    let mut any = false;
    for (mdt, fid) in lum.objects {
        any = true;
        match (yaml, mdt) {
            (true, Some(m)) => writeln!(f, "      - l_mdt_idx: {}", m as i32)?,
            (true, None) => writeln!(f, "      - l_mdt_idx: ?")?,
            (false, Some(m)) => write!(f, "{m:6}")?,
            (false, None) => write!(f, "{:>6}", "?")?,
        }
        if yaml {
            writeln!(f, "        l_fid:     {}", Dfid(fid, false))?;
        } else {
            writeln!(f, "\t\t {}\t\t", Dfid(fid, true))?;
        }
    }
    // A plain directory in yaml: one entry with its own MDT and FID.
    if let (true, false, 0, Some(fid)) = (yaml, any, lum.stripe_count, dir_fid) {
        writeln!(f, "      - l_mdt_idx: {}", lum.stripe_offset as i32)?;
        writeln!(f, "        l_fid:     {}", Dfid(fid, false))?;
    }
    Ok(())
}

/// `lfs getdirstripe -v` (or `--yaml`) text of a `trusted.lmv`.
#[derive(Debug, Clone, Copy)]
pub struct GetDirStripe<'a> {
    lmv: LmvView<'a>,
    fid: Option<LuFid>,
    mdt: Option<u32>,
    stripe_mdts: Option<&'a [u32]>,
    yaml: bool,
}

impl<'a> GetDirStripe<'a> {
    pub(super) fn new(lmv: LmvView<'a>) -> Self {
        GetDirStripe {
            lmv,
            fid: None,
            mdt: None,
            stripe_mdts: None,
            yaml: false,
        }
    }
    /// The directory's FID (`lmv_fid`).
    pub fn fid(mut self, fid: LuFid) -> Self {
        self.fid = Some(fid);
        self
    }
    /// The MDT holding the directory (`lmv_stripe_offset`); by default the header's
    /// `lmv_master_mdt_index`.
    pub fn mdt(mut self, mdt: u32) -> Self {
        self.mdt = Some(mdt);
        self
    }
    /// The MDT of each stripe, in stripe order (the client finds them with an FLD lookup).
    pub fn stripe_mdts(mut self, mdts: &'a [u32]) -> Self {
        self.stripe_mdts = Some(mdts);
        self
    }
    /// `lfs getdirstripe --yaml` instead of `-v`.
    pub fn yaml(mut self, yaml: bool) -> Self {
        self.yaml = yaml;
        self
    }

    fn md(&self, f: &mut fmt::Formatter<'_>, m: &LmvMdView<'_>) -> fmt::Result {
        if m.magic() == LMV_MAGIC_STRIPE {
            // lfs never sees a stripe's own LMV (the client always returns the master's); the
            // labels follow lfs, and the stripe's index is named as Lustre names it there.
            return writeln!(
                f,
                "lmv_magic: {} lmv_stripe_count: {} lmv_stripe_index: {} lmv_hash_type: {}",
                CHex(m.magic().into()),
                m.stripe_count(),
                m.master_mdt_index(),
                LfsHash(m.hash_type().0)
            );
        }
        let mdts = self.stripe_mdts.unwrap_or(&[]);
        dump(
            f,
            Lum {
                magic: m.magic(),
                stripe_count: m.stripe_count() as i32,
                stripe_offset: self.mdt.unwrap_or(m.master_mdt_index()),
                hash_type: m.hash_type().0,
                inherit: (0, 0),
                // The client's buffer is zeroed: lfs never shows lmv_pool_name of an LMV.
                pool: &[],
                objects: m
                    .stripe_fids()
                    .enumerate()
                    .map(|(i, fid)| (mdts.get(i).copied(), fid)),
            },
            self.fid,
            self.yaml,
        )
    }
}

struct LfsHash(u32);
impl fmt::Display for LfsHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        hash_type(f, self.0)
    }
}

impl fmt::Display for GetDirStripe<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.lmv {
            LmvView::Md(m) => self.md(f, m),
            LmvView::Foreign(v) => foreign(f, v, !self.yaml),
        }
    }
}

/// `lfs getdirstripe -D -v` (or `-D --yaml`) text of a `trusted.dmv`.
#[derive(Debug, Clone, Copy)]
pub struct GetDefaultDirStripe<'a> {
    dmv: DefaultLmvView<'a>,
    fid: Option<LuFid>,
    yaml: bool,
}

impl<'a> GetDefaultDirStripe<'a> {
    pub(super) fn new(dmv: DefaultLmvView<'a>) -> Self {
        GetDefaultDirStripe {
            dmv,
            fid: None,
            yaml: false,
        }
    }
    /// The directory's FID (`lmv_fid`).
    pub fn fid(mut self, fid: LuFid) -> Self {
        self.fid = Some(fid);
        self
    }
    /// `--yaml` instead of `-v`.
    pub fn yaml(mut self, yaml: bool) -> Self {
        self.yaml = yaml;
        self
    }
}

impl fmt::Display for GetDefaultDirStripe<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = &self.dmv;
        dump(
            f,
            Lum {
                magic: v.magic(),
                stripe_count: v.stripe_count(),
                stripe_offset: v.stripe_offset(),
                hash_type: v.hash_type().0,
                inherit: (v.max_inherit(), v.max_inherit_rr()),
                pool: v.pool_name().as_bytes(),
                objects: v.objects().map(|o| (Some(o.mds), o.fid)),
            },
            self.fid,
            self.yaml,
        )
    }
}

impl<'a> LmvView<'a> {
    /// An `lfs getdirstripe -v` text renderer (options on [`GetDirStripe`]).
    pub fn getdirstripe(&self) -> GetDirStripe<'a> {
        GetDirStripe::new(*self)
    }
}

impl<'a> DefaultLmvView<'a> {
    /// An `lfs getdirstripe -D -v` text renderer (options on [`GetDefaultDirStripe`]).
    pub fn getdirstripe(&self) -> GetDefaultDirStripe<'a> {
        GetDefaultDirStripe::new(*self)
    }
}
