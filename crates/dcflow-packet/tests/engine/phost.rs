//! pHost end to end (Gao et al., CoNEXT'15): the host agents in the engine.

use crate::host_agents::{at_1g, conserved_and_repeatable, lone_flow_at_line_rate, shorter_first_at_line_rate};

/// A lone flow: its RTS (40 bytes) goes first, then the data back to back
/// at line rate, the first BDP on free tokens and the rest on tokens that
/// arrive before the free ones run out; for a flow inside the free tokens
/// and for one many times larger.
#[test]
fn a_lone_flow_takes_line_rate_after_its_rts() {
    for (size, bytes) in [("3KB", 3_000u64), ("1MB", 1_000_000)] {
        lone_flow_at_line_rate("phost", size, bytes, at_1g(40));
    }
}

/// Two flows into one host, both there from the start: the destination
/// tokens the one with fewer packets left first (SRPT).
#[test]
fn two_flows_to_one_host_the_shorter_first_at_line_rate() {
    shorter_first_at_line_rate("phost");
}

/// Sixty flows at load 0.6 among nine hosts: a retransmission round may send
/// a packet still in flight again (pHost re-tokens what has not arrived
/// after `resend_after`), but nothing is lost and every receiver ends with
/// exactly its bytes.
#[test]
fn bytes_are_conserved_and_runs_repeat() {
    conserved_and_repeatable("phost");
}
