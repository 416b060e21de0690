//! Every flow path of a run in one flat, interned table, so that forwarding
//! a packet reads the table and the packet only.
//!
//! Without it, each hop looked up the packet's flow and then the flow's own
//! path vector: two scattered reads per hop that miss the cache once a run
//! has more flows than the cache holds (BENCHMARKS.md, "Packet engine").
//! Identical paths share one entry (in a leaf-spine, every flow between the
//! same two leaves through the same spine), which keeps the table small;
//! flows hold path ids instead of vectors of their own, which also keeps a
//! run of a million flows small. Paths pinned while the run goes (timed
//! failures) are interned as they come.

use dcflow_core::LinkId;
use std::collections::HashMap;

/// Ends each path in the table.
const END: LinkId = LinkId::MAX;

#[derive(Default)]
pub struct PathTable {
    /// The links of every path, each followed by `END`.
    links: Vec<LinkId>,
    /// Where each distinct path starts in `links`.
    index: HashMap<Vec<LinkId>, u32>,
}

impl PathTable {
    /// The id of `path`: where its links start in the table.
    pub fn intern(&mut self, path: &[LinkId]) -> u32 {
        if let Some(&id) = self.index.get(path) {
            return id;
        }
        let id = self.links.len() as u32;
        self.links.extend_from_slice(path);
        self.links.push(END);
        self.index.insert(path.to_vec(), id);
        id
    }

    /// The links of path `id`.
    pub fn path(&self, id: u32) -> &[LinkId] {
        let rest = &self.links[id as usize..];
        &rest[..rest.iter().position(|&l| l == END).expect("every path ends")]
    }

    /// Link `hop` of path `id`, `None` past its last link.
    #[inline]
    pub fn link(&self, id: u32, hop: u8) -> Option<LinkId> {
        let l = self.links[id as usize + hop as usize];
        (l != END).then_some(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_paths_share_one_entry_and_end_where_they_end() {
        let mut t = PathTable::default();
        let a = t.intern(&[3, 7, 9]);
        let b = t.intern(&[4, 7]);
        assert_eq!(t.intern(&[3, 7, 9]), a);
        assert_ne!(a, b);
        assert_eq!((t.path(a), t.path(b)), (&[3, 7, 9][..], &[4, 7][..]));
        assert_eq!((0..4).map(|h| t.link(a, h)).collect::<Vec<_>>(), [Some(3), Some(7), Some(9), None]);
        assert_eq!((t.link(b, 0), t.link(b, 1), t.link(b, 2)), (Some(4), Some(7), None));
    }
}
