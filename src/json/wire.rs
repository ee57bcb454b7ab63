//! Hand-written serde forms of the wire values whose shape is not a plain struct: FIDs,
//! handles, bounded lists, names, closed enumerations and the result table.

use crate::Endian;
use crate::intent::{EntryName, GroupList, MliBuf, Operation};
use crate::limits::{GROUPS_MAX, LDLM_REQUEST_MAX_HANDLES, NAME_MAX};
use crate::serde_helpers::bytes::{de_name, ser_name};
use crate::serde_helpers::stack_fmt;
use crate::wire::{LockHandles, LuFid, LustreHandle};
use core::fmt;
use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};

/// Reads a string and parses it with `FromStr`, reporting the parse error.
struct Parsed<T>(core::marker::PhantomData<T>, &'static str);

impl<T> Visitor<'_> for Parsed<T>
where
    T: core::str::FromStr,
    T::Err: fmt::Display,
{
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.1)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        v.parse().map_err(|e| E::custom(format_args!("`{v}`: {e}")))
    }
}

fn de_parsed<'de, D, T>(d: D, expecting: &'static str) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: core::str::FromStr,
    T::Err: fmt::Display,
{
    d.deserialize_str(Parsed(core::marker::PhantomData, expecting))
}

impl Serialize for LuFid {
    /// `"[0x200000401:0x1:0x0]"`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(stack_fmt::<48>(format_args!("{self}")).as_str())
    }
}

impl<'de> Deserialize<'de> for LuFid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de_parsed(d, "a FID, \"[0xSEQ:0xOID:0xVER]\"")
    }
}

impl Serialize for LustreHandle {
    /// `"0x…"`, 16 digits.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::serde_helpers::ints::hex::serialize(&self.0, s)
    }
}

impl<'de> Deserialize<'de> for LustreHandle {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::serde_helpers::ints::hex::deserialize(d).map(LustreHandle)
    }
}

impl Serialize for LockHandles {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.as_slice())
    }
}

impl<'de> Deserialize<'de> for LockHandles {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LockHandles;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "2 to {LDLM_REQUEST_MAX_HANDLES} lock handles")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LockHandles, A::Error> {
                let mut items = [LustreHandle(0); LDLM_REQUEST_MAX_HANDLES];
                let mut n = 0;
                while let Some(h) = seq.next_element::<LustreHandle>()? {
                    if n == LDLM_REQUEST_MAX_HANDLES {
                        return Err(de::Error::invalid_length(n + 1, &self));
                    }
                    items[n] = h;
                    n += 1;
                }
                LockHandles::from_slice(&items[..n])
                    .ok_or_else(|| de::Error::invalid_length(n, &self))
            }
        }
        d.deserialize_seq(V)
    }
}

impl Serialize for EntryName {
    /// The name as a string when UTF-8, else `{"hex": "…"}`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ser_name(self.as_bytes(), s)
    }
}

impl<'de> Deserialize<'de> for EntryName {
    /// Checked by [`EntryName::new`]: not empty, at most 255 bytes, no `/` or NUL, not `.`/`..`.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let b = de_name(d, NAME_MAX)?;
        EntryName::new(&b).map_err(|e| de::Error::custom(format_args!("entry name: {e}")))
    }
}

impl Serialize for GroupList {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.as_slice())
    }
}

impl<'de> Deserialize<'de> for GroupList {
    /// At most [`GROUPS_MAX`] gids.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = GroupList;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "at most {GROUPS_MAX} group ids")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<GroupList, A::Error> {
                let mut l = GroupList::new();
                let mut n = 0;
                while let Some(g) = seq.next_element::<u32>()? {
                    n += 1;
                    l.push(g).map_err(|_| de::Error::invalid_length(n, &self))?;
                }
                Ok(l)
            }
        }
        d.deserialize_seq(V)
    }
}

macro_rules! by_name {
    ($T:ty, $expecting:literal) => {
        impl Serialize for $T {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }
        impl<'de> Deserialize<'de> for $T {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                de_parsed(d, $expecting)
            }
        }
    };
}

by_name!(Endian, "\"le\" or \"be\"");
by_name!(Operation, "\"create\", \"rename\" or \"unlink\"");
by_name!(MliBuf, "an MLI_BUF name");
