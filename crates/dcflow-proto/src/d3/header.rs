//! D3's congestion header (D3 §5, Fig. 6): the rate request a packet
//! carries to the routers and the allocations it brings back.

/// Most ports a per-hop allocation vector can describe. D3 §5 uses 6 ("a
/// maximum network diameter of 6 routers"); we allow 8 so that BCube(n,3)'s
/// paths and a 3-tier fat-tree's (the sender's NIC and five switches) fit.
pub const MAX_HOPS: usize = 8;

/// Bytes D3's congestion header adds to a packet carrying a rate request (§5).
pub const RATE_HEADER_BYTES: u32 = 22;

/// D3's congestion header (D3 §5, Fig. 6). Rates are in bits per second.
/// `alloc[h]` is `[a_{t+1}]` written by the h-th port on the path (0: the
/// sender's NIC). The
/// paper's header also returns the previous request's r_t and \[a_t\]; dcflow's
/// routers remember each flow's latest grant instead (see
/// [`super::RateAllocator`]), so those fields are charged on the wire (the
/// 22 bytes of §5) but not modelled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateHeader {
    /// r_{t+1}: desired rate for the next RTT (0 for non-deadline flows).
    pub desired: u64,
    pub alloc: [u64; MAX_HOPS],
    /// SYN flag for the rate allocator: a new flow (Snippet 1 line 2, and the
    /// base-rate pause of §4.5).
    pub new_flow: bool,
    /// FIN flag: the flow leaves; return its allocation and demand.
    pub leaving: bool,
}

impl RateHeader {
    pub const fn empty() -> RateHeader {
        RateHeader { desired: 0, alloc: [0; MAX_HOPS], new_flow: false, leaving: false }
    }
    /// The sending rate a sender takes from feedback: the minimum over the
    /// `hops` ports that wrote an allocation (D3 §4.1).
    pub fn min_alloc(&self, hops: usize) -> u64 {
        self.alloc[..hops.min(MAX_HOPS)].iter().copied().min().unwrap_or(0)
    }
}
