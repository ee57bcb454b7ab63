//! Intent opcodes and the connect flag that gates them (WIRE.md §4).

use super::IntentOpc;

/// `OBD_CONNECT2_DNE_PREPARE` (bit 45 of `ocd_connect_flags2`, provisional): the peer MDT
/// understands the prepare opcodes. Without it, an intent enqueue fails with -EPROTO.
pub const OBD_CONNECT2_DNE_PREPARE: u64 = 0x0000_2000_0000_0000;

/// The operation a prepare intent serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum Operation {
    /// Create or mkdir (`IT_DNE_CREATE_PREPARE`).
    Create,
    /// Rename (`IT_DNE_RENAME_PREPARE`).
    Rename,
    /// Unlink or rmdir (`IT_DNE_UNLINK_PREPARE`).
    Unlink,
}

impl Operation {
    /// The operation of a prepare opcode; `None` for any other opcode.
    pub const fn of_opc(opc: IntentOpc) -> Option<Self> {
        match opc.0 {
            0x0001_0000 => Some(Operation::Create),
            0x0002_0000 => Some(Operation::Rename),
            0x0004_0000 => Some(Operation::Unlink),
            _ => None,
        }
    }

    /// The prepare opcode of this operation.
    pub const fn opc(self) -> IntentOpc {
        match self {
            Operation::Create => IntentOpc::DNE_CREATE_PREPARE,
            Operation::Rename => IntentOpc::DNE_RENAME_PREPARE,
            Operation::Unlink => IntentOpc::DNE_UNLINK_PREPARE,
        }
    }

    /// Every operation.
    pub const ALL: [Operation; 3] = [Operation::Create, Operation::Rename, Operation::Unlink];

    /// The tool's and the JSON name: `"create"`, `"rename"` or `"unlink"`.
    pub const fn name(self) -> &'static str {
        match self {
            Operation::Create => "create",
            Operation::Rename => "rename",
            Operation::Unlink => "unlink",
        }
    }

    /// The opcode's Lustre name.
    pub const fn opc_name(self) -> &'static str {
        match self {
            Operation::Create => "IT_DNE_CREATE_PREPARE",
            Operation::Rename => "IT_DNE_RENAME_PREPARE",
            Operation::Unlink => "IT_DNE_UNLINK_PREPARE",
        }
    }
}

impl core::fmt::Display for Operation {
    /// `create`, `rename` or `unlink`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.pad(self.name())
    }
}

impl core::str::FromStr for Operation {
    type Err = crate::flags::ParseError;
    /// `create`, `rename` or `unlink` (surrounding whitespace ignored).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::flags::parse_closed(s, "Operation", &Operation::ALL, |o| o.name())
    }
}
