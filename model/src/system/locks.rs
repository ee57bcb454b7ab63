//! The parent MDT's LDLM lock table for IBITS locks: granted and waiting queues, conflicts per
//! Lustre's compatibility matrix (`lck_compat_array` in `lustre_dlm.h`) and inode-bit overlap
//! (`ldlm_inodebits_compat_queue`).

use alloc::vec::Vec;
use lustre_dne_intent::wire::{InodeBits, LdlmResId, LockMode};

/// The modes a mode is compatible with (`LCK_COMPAT_*`), as a mask of mode values.
pub const fn compat_mask(mode: LockMode) -> u32 {
    const EX: u32 = LockMode::NL.0;
    const PW: u32 = EX | LockMode::CR.0;
    const PR: u32 = PW | LockMode::PR.0 | LockMode::TXN.0;
    const CW: u32 = PW | LockMode::CW.0;
    const CR: u32 = CW | LockMode::PR.0 | LockMode::PW.0 | LockMode::TXN.0;
    const NL: u32 = CR | LockMode::EX.0 | LockMode::GROUP.0 | LockMode::COS.0;
    match mode {
        LockMode::EX => EX,
        LockMode::PW => PW,
        LockMode::PR => PR,
        LockMode::CW => CW,
        LockMode::CR => CR,
        LockMode::NL => NL,
        LockMode::GROUP => LockMode::NL.0 | LockMode::GROUP.0,
        LockMode::COS => LockMode::NL.0 | LockMode::COS.0,
        LockMode::TXN => PR,
        _ => 0,
    }
}

/// `lockmode_compat`: the matrix lookup.
pub const fn modes_compatible(a: LockMode, b: LockMode) -> bool {
    compat_mask(a) & b.0 != 0
}

/// Who asked for a lock: coordinator index and the client's cookie for that enqueue (the
/// remote handle the server finds a resent or replayed enqueue by).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Owner {
    /// Coordinator index.
    pub coord: u8,
    /// The client's lock cookie.
    pub cookie: u16,
}

/// One lock in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Lock {
    /// Server-side lock id (the handle in the reply).
    pub id: u16,
    /// The requester.
    pub owner: Owner,
    /// The resource.
    pub res: LdlmResId,
    /// The mode.
    pub mode: LockMode,
    /// The inode bits.
    pub bits: InodeBits,
    /// A blocking AST was sent for it.
    pub bl_sent: bool,
}

impl Lock {
    /// True when `self` and `other` may not be granted together.
    pub fn conflicts(&self, other: &Lock) -> bool {
        self.res == other.res
            && self.bits.0 & other.bits.0 != 0
            && !modes_compatible(self.mode, other.mode)
    }
}

/// The granted and waiting queues of the namespace.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct LockTable {
    /// Granted locks.
    pub granted: Vec<Lock>,
    /// Waiting locks, in arrival order.
    pub waiting: Vec<Lock>,
}

impl LockTable {
    /// The granted lock of `owner`, if any.
    pub fn granted_of(&self, owner: Owner) -> Option<&Lock> {
        self.granted.iter().find(|l| l.owner == owner)
    }

    /// True when `owner` has a lock queued.
    pub fn waiting_of(&self, owner: Owner) -> bool {
        self.waiting.iter().any(|l| l.owner == owner)
    }

    /// Granted locks that block `lock` (ids).
    pub fn blockers(&self, lock: &Lock) -> Vec<u16> {
        self.granted
            .iter()
            .filter(|g| g.conflicts(lock))
            .map(|g| g.id)
            .collect()
    }

    /// Enqueues `lock`: grants it when nothing granted conflicts and no earlier waiter does
    /// (the waiting queue is fair, as `ldlm_inodebits_compat_queue` checks both queues).
    /// Returns true when granted.
    pub fn enqueue(&mut self, lock: Lock) -> bool {
        let blocked = self.granted.iter().any(|g| g.conflicts(&lock))
            || self.waiting.iter().any(|w| w.conflicts(&lock));
        if blocked {
            self.waiting.push(lock);
        } else {
            self.granted.push(lock);
        }
        !blocked
    }

    /// Cancels the lock `id` (granted or waiting); returns it.
    pub fn cancel(&mut self, id: u16) -> Option<Lock> {
        if let Some(i) = self.granted.iter().position(|l| l.id == id) {
            return Some(self.granted.remove(i));
        }
        let i = self.waiting.iter().position(|l| l.id == id)?;
        Some(self.waiting.remove(i))
    }

    /// Grants every waiter that no longer conflicts (in queue order, each checked against the
    /// granted queue and the waiters still ahead of it). Returns the newly granted locks.
    pub fn reprocess(&mut self) -> Vec<Lock> {
        let mut newly = Vec::new();
        let mut still = Vec::new();
        for w in core::mem::take(&mut self.waiting) {
            let blocked = self.granted.iter().any(|g| g.conflicts(&w))
                || still.iter().any(|s: &Lock| s.conflicts(&w));
            if blocked {
                still.push(w);
            } else {
                self.granted.push(w);
                newly.push(w);
            }
        }
        self.waiting = still;
        newly
    }

    /// A pair of granted locks that conflict, if any (the first safety property).
    pub fn incompatible_pair(&self) -> Option<(Lock, Lock)> {
        for (i, a) in self.granted.iter().enumerate() {
            for b in &self.granted[i + 1..] {
                if a.conflicts(b) {
                    return Some((*a, *b));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lustre_dne_intent::wire::LuFid;

    const MODES: [LockMode; 6] = LockMode::CLIENT;

    /// The compatible pairs as lustre-semantics.md §2 lists them from `lustre_dlm.h`.
    #[test]
    fn matrix_matches_lustre() {
        let compatible = |a: LockMode, b: LockMode| -> bool {
            use LockMode as M;
            let set: &[LockMode] = match a {
                M::EX => &[M::NL],
                M::PW => &[M::NL, M::CR],
                M::PR => &[M::NL, M::CR, M::PR],
                M::CW => &[M::NL, M::CR, M::CW],
                M::CR => &[M::NL, M::CR, M::PR, M::CW, M::PW],
                _ => &MODES,
            };
            set.contains(&b)
        };
        for a in MODES {
            for b in MODES {
                assert_eq!(modes_compatible(a, b), compatible(a, b), "{a:?} {b:?}");
                assert_eq!(modes_compatible(a, b), modes_compatible(b, a));
            }
        }
    }

    fn lock(id: u16, hash: u64, mode: LockMode, bits: InodeBits) -> Lock {
        Lock {
            id,
            owner: Owner {
                coord: id as u8,
                cookie: 0,
            },
            res: LdlmResId::of_fid(LuFid::new(0x2_0000_0400, 1, 0), hash),
            mode,
            bits,
            bl_sent: false,
        }
    }

    #[test]
    fn pdo_locks_and_changers() {
        let mut t = LockTable::default();
        // Two creates in one directory: CW whole-directory locks coexist, PW name locks on
        // different hashes coexist, PW on the same hash waits.
        assert!(t.enqueue(lock(1, 0, LockMode::CW, InodeBits::UPDATE)));
        assert!(t.enqueue(lock(2, 0, LockMode::CW, InodeBits::UPDATE)));
        assert!(t.enqueue(lock(3, 7, LockMode::PW, InodeBits::UPDATE)));
        assert!(t.enqueue(lock(4, 8, LockMode::PW, InodeBits::UPDATE)));
        assert!(!t.enqueue(lock(5, 7, LockMode::PW, InodeBits::UPDATE)));
        // chmod's EX UPDATE|PERM on the directory waits for the CW locks.
        let chmod = lock(6, 0, LockMode::EX, InodeBits::UPDATE | InodeBits::PERM);
        assert_eq!(t.blockers(&chmod), [1, 2]);
        assert!(!t.enqueue(chmod));
        // A LOOKUP-only lock does not meet the UPDATE locks.
        assert!(t.enqueue(lock(7, 0, LockMode::EX, InodeBits::LOOKUP)));
        t.cancel(3);
        assert_eq!(t.reprocess().iter().map(|l| l.id).collect::<Vec<_>>(), [5]);
        t.cancel(1);
        assert!(t.reprocess().is_empty());
        t.cancel(2);
        assert_eq!(t.reprocess().iter().map(|l| l.id).collect::<Vec<_>>(), [6]);
        assert_eq!(t.incompatible_pair(), None);
    }
}
