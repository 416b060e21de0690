//! What the stress matrix runs: every packet-engine protocol and
//! variant ([`PROTOCOLS`]) on every scenario ([`scenarios`]): incast into one
//! 1 Gbps port, Poisson all-to-all on the 12-host tree and a k = 4 fat-tree,
//! both again with 1% random loss, and the fat-tree with a core link and a
//! core switch that fail and recover during the run.

use dcflow_core::Dur;

/// One protocol or variant of the packet engine. A new protocol joins the
/// matrix with one line in [`PROTOCOLS`].
#[derive(Clone, Copy, Debug)]
pub struct Protocol {
    /// Its name in the table.
    pub label: &'static str,
    /// The keys of its `[protocol]` section.
    pub keys: &'static str,
    /// Its smallest retransmission timeout: the end bound allows
    /// [`crate::checks::RTO_ALLOWANCE`] of them for timeouts.
    pub rto: Dur,
    /// It has a rule of its own that gives up flows (D3's quenching, PDQ's
    /// Early Termination); flows of other protocols must all finish.
    pub terminates: bool,
    /// `[workload]` keys only this protocol reads (Karuna's flow types).
    pub workload: &'static str,
}

const fn protocol(label: &'static str, keys: &'static str, rto: Dur, terminates: bool) -> Protocol {
    Protocol { label, keys, rto, terminates, workload: "" }
}

/// TCP and its descendants: `rto_min` 10 ms (D3 §6.1.2).
const TCP_RTO: Dur = Dur::ms(10);
/// D3, RCP_dc and PDQ: `rto_min` 1 ms (their configs' defaults).
const RATE_RTO: Dur = Dur::ms(1);
/// pFabric's RTO is 3 base RTTs (pFabric §4.3, §5) of the flow's path. The
/// shortest path here crosses one switch (the star; hosts of one rack or edge
/// switch): 2 x (0.1 + 25 + 0.1) us of links and the switch, plus one 1500 B
/// packet and a 40 B ACK over two 1 Gbps links (24.6 us), 75 us; 3 x that is
/// 225 us (measured: a flow waiting 8.26 ms behind another on the star times
/// out 36 times).
const PFABRIC_RTO: Dur = Dur::us(225);
/// MERP's first RTO is 3 base RTTs (SRTT + 4 RTTVAR with RTTVAR = SRTT / 2,
/// MERP §4.1): 225 us on the same shortest path, as pFabric's.
const MERP_RTO: Dur = Dur::us(225);
/// S3 retransmits after 2 RTTs (S3 §4.2): 150 us on the same shortest path.
const S3_RTO: Dur = Dur::us(150);
/// pHost's destination tokens missing packets again `resend_after` (9) MTU
/// transmission times after its last round: 108 us at 1 Gbps.
const PHOST_RTO: Dur = Dur::us(108);

/// Every packet-engine protocol and variant, in table order.
pub const PROTOCOLS: &[Protocol] = &[
    protocol("tcp", "name = \"tcp\"", TCP_RTO, false),
    protocol("dctcp", "name = \"dctcp\"", TCP_RTO, false),
    protocol("d2tcp", "name = \"d2tcp\"", TCP_RTO, false),
    protocol("lpd-d", "name = \"lpd\"\nvariant = \"d\"", TCP_RTO, false),
    protocol("lpd-t", "name = \"lpd\"\nvariant = \"t\"", TCP_RTO, false),
    protocol("lpd-e", "name = \"lpd\"\nvariant = \"e\"", TCP_RTO, false),
    protocol("lpd-mld", "name = \"lpd\"\nvariant = \"mld\"", TCP_RTO, false),
    protocol("lpd-s", "name = \"lpd\"\nvariant = \"s\"", TCP_RTO, false),
    // L2DCT (baselines.md "L2DCT"), LPD's baseline (papers/004 §V-C, §VI).
    protocol("l2dct", "name = \"l2dct\"", TCP_RTO, false),
    protocol("rcp", "name = \"rcp\"", RATE_RTO, false),
    protocol("d3", "name = \"d3\"", RATE_RTO, false),
    protocol("d3-quench", "name = \"d3\"\nquenching = true", RATE_RTO, true),
    protocol("pdq-basic", "name = \"pdq\"\nvariant = \"basic\"", RATE_RTO, false),
    protocol("pdq-es", "name = \"pdq\"\nvariant = \"es\"", RATE_RTO, false),
    protocol("pdq-es_et", "name = \"pdq\"\nvariant = \"es_et\"", RATE_RTO, true),
    protocol("pdq-full", "name = \"pdq\"\nvariant = \"full\"", RATE_RTO, true),
    // M-PDQ (PDQ §6): on the fat-tree, up to 4 paths between pods.
    protocol("m-pdq", "name = \"pdq\"\nsubflows = 4", RATE_RTO, true),
    protocol("pfabric", "name = \"pfabric\"", PFABRIC_RTO, false),
    // S3 (papers/001): PDQ's machinery in S3's order; Early Termination
    // (§4.2) gives up flows that cannot meet their deadlines.
    protocol("s3", "name = \"s3\"", S3_RTO, true),
    // MERP (papers/003): its RTO is SRTT + 4 RTTVAR, 3 base RTTs at first.
    protocol("merp", "name = \"merp\"", MERP_RTO, false),
    // pHost (Gao et al., CoNEXT'15): receiver tokens, one agent per host.
    protocol("phost", "name = \"phost\"", PHOST_RTO, false),
    // PIAS (NSDI'15): DCTCP's sender tagging the MLFQ class of its bytes sent.
    protocol("pias", "name = \"pias\"", TCP_RTO, false),
    // Karuna (SIGCOMM'16): the incast-deadline columns' flows are all type 1
    // (MCP), the others' half type 2 and half type 3.
    Protocol { workload: "known_size_fraction = 0.5\n", ..protocol("karuna", "name = \"karuna\"", TCP_RTO, false) },
];

/// Every scenario runs with this seed (and again with it, for determinism).
pub const SEED: u64 = 12;
/// Senders of the incast scenarios.
pub const INCAST_SENDERS: &[u32] = &[1, 10, 50, 100, 200, 500];
/// Offered loads of the Poisson scenarios.
pub const LOADS: &[f64] = &[0.3, 0.6, 0.9];
/// Flows of each Poisson scenario: enough for the load to build queues
/// (about 100 MB at 100 KB a flow), few enough for the matrix on 2 cores.
pub const POISSON_FLOWS: u32 = 1000;
/// Random loss: 1% on each direction of the incast's bottleneck; on the
/// Poisson topologies 0.5% on each direction of every host's access link, so
/// that a packet, which crosses two access links, is lost with about 1%.
pub const LOSS: f64 = 0.01;

/// One column of the matrix: the topology, workload and faults sections
/// every protocol runs on.
#[derive(Clone, Debug)]
pub struct StressScenario {
    pub label: String,
    /// TOML of `[topology]`, `[workload]` and `[faults]`.
    pub sections: String,
    /// `[[faults.events]]`: the packet runs only. The fair reference is the
    /// same flows on the intact network (the fluid engine has no failures).
    pub events: String,
}

impl StressScenario {
    /// The scenario under `protocol` on the packet engine, ended at `stop`.
    pub fn packet_toml(&self, protocol: &Protocol, stop: Dur) -> String {
        let stop_us = stop.as_secs_f64() * 1e6;
        let sections = self.sections.replacen("[workload]\n", &format!("[workload]\n{}", protocol.workload), 1);
        format!("seed = {SEED}\nstop = \"{stop_us:.0}us\"\n[protocol]\n{}\n{sections}{}", protocol.keys, self.events)
    }

    /// The same flows under ideal max-min fair sharing (the fluid engine).
    pub fn fair_toml(&self) -> String {
        self.fluid_toml("name = \"fair\"")
    }

    /// The same flows on the fluid engine, under the `[protocol]` keys `keys`.
    pub fn fluid_toml(&self, keys: &str) -> String {
        format!("seed = {SEED}\nengine = \"fluid\"\n[protocol]\n{keys}\n{}", self.sections)
    }
}

/// PDQ §5.1's deadline-constrained flows: sizes uniform on [2 KB, 198 KB].
const SIZES: &str = "size = { dist = \"uniform\", min = \"2KB\", max = \"198KB\" }";
/// D3 §6.1.1's deadlines: exponential with mean 20 ms, at least 3 ms.
pub const DEADLINES: &str = "deadline = { dist = \"exponential\", mean = \"20ms\", min = \"3ms\" }";

/// `senders` simultaneous flows into host 0 of a 1 Gbps star.
pub fn incast(senders: u32, deadlines: bool, lossy: bool) -> StressScenario {
    let deadline = if deadlines { format!("{DEADLINES}\n") } else { String::new() };
    let faults = if lossy { format!("[faults]\nloss = {LOSS}\ndirection = \"both\"\n") } else { String::new() };
    StressScenario {
        events: String::new(),
        label: format!("incast-{senders}{}{}", if deadlines { "-deadline" } else { "" }, lossy_suffix(lossy)),
        sections: format!(
            "[topology]\nkind = \"star\"\nhosts = {}\n\
             [workload]\npattern = \"aggregation\"\nflows = {senders}\n{SIZES}\n{deadline}{faults}",
            senders + 1
        ),
    }
}

/// The multi-switch topologies of the Poisson scenarios, all with 1 Gbps links.
#[derive(Clone, Copy, Debug)]
pub enum Fabric {
    /// The default tree: 4 racks of 3 hosts under one root (PDQ §5.1).
    Tree,
    /// A leaf-spine: 4 leaves of 4 hosts, 2 spines (2:1 oversubscribed
    /// leaves). The agreement matrix only.
    LeafSpine,
    /// A k = 4 fat-tree: 16 hosts, 4 core switches.
    FatTree,
}

impl Fabric {
    pub fn label(self) -> &'static str {
        match self {
            Fabric::Tree => "tree",
            Fabric::LeafSpine => "leafspine",
            Fabric::FatTree => "fattree",
        }
    }

    fn topology(self) -> &'static str {
        match self {
            Fabric::Tree => "[topology]\nkind = \"tree\"\n",
            Fabric::LeafSpine => "[topology]\nkind = \"leaf_spine\"\nleaves = 4\nhosts_per_leaf = 4\nspines = 2\n",
            Fabric::FatTree => "[topology]\nkind = \"fat_tree\"\nk = 4\n",
        }
    }
}

/// `[topology]` and `[workload]` of `flows` flows between uniformly random
/// hosts of `fabric`, arriving as a Poisson process that offers `load` of
/// the access links, with sizes `size` (a `size = ...` line).
pub fn all_to_all(fabric: Fabric, load: f64, flows: u32, size: &str) -> String {
    format!(
        "{}[workload]\npattern = \"all_to_all\"\narrival = \"poisson\"\nload = {load}\nflows = {flows}\n{size}\n",
        fabric.topology()
    )
}

/// [`POISSON_FLOWS`] flows between uniformly random hosts, arriving as a
/// Poisson process that offers `load` of the access links.
pub fn poisson(fabric: Fabric, load: f64, lossy: bool) -> StressScenario {
    let base = all_to_all(fabric, load, POISSON_FLOWS, SIZES);
    let faults = if lossy { access_link_loss(&base) } else { String::new() };
    StressScenario { label: format!("{}-{load}{}", fabric.label(), lossy_suffix(lossy)), sections: base + &faults, events: String::new() }
}

/// The fat-tree at `load` while a core link (both directions) is down from
/// 5 to 30 ms and core switch `core1` from 10 to 40 ms, routing converging
/// 1 ms after each change: flows crossing them lose packets until they are
/// rerouted, and every flow must still finish or end by its protocol's rule.
pub fn link_failure(load: f64) -> StressScenario {
    let mut s = poisson(Fabric::FatTree, load, false);
    s.label = format!("fattree-{load}-linkfail");
    s.sections += "[faults]\nconvergence = \"1ms\"\n";
    let events = [
        ("5ms", "link = \"core0<->agg0_0\"", "down"),
        ("10ms", "node = \"core1\"", "down"),
        ("30ms", "link = \"core0<->agg0_0\"", "up"),
        ("40ms", "node = \"core1\"", "up"),
    ];
    s.events = events
        .iter()
        .map(|(at, what, state)| format!("[[faults.events]]\nat = \"{at}\"\n{what}\nstate = \"{state}\"\n"))
        .collect();
    s
}

/// `[faults]` losing [`LOSS`] / 2 on both directions of every host's access link.
fn access_link_loss(sections: &str) -> String {
    let scenario = dcflow_scenario::Scenario::from_toml(sections).expect("the matrix's scenarios are valid");
    let topo = scenario.build_topology().expect("the matrix's topologies build");
    let uplinks: Vec<String> = topo
        .links
        .iter()
        .filter(|l| (l.from as usize) < topo.hosts)
        .map(|l| format!("\"{}\"", l.name))
        .collect();
    format!("[faults]\nloss = {}\ndirection = \"both\"\nlinks = [{}]\n", LOSS / 2.0, uplinks.join(", "))
}

fn lossy_suffix(lossy: bool) -> &'static str {
    if lossy {
        "-loss"
    } else {
        ""
    }
}

/// Every scenario of the matrix, in table order.
pub fn scenarios() -> Vec<StressScenario> {
    let mut all = Vec::new();
    for lossy in [false, true] {
        for deadlines in [false, true] {
            all.extend(INCAST_SENDERS.iter().map(|&n| incast(n, deadlines, lossy)));
        }
        for fabric in [Fabric::Tree, Fabric::FatTree] {
            all.extend(LOADS.iter().map(|&load| poisson(fabric, load, lossy)));
        }
    }
    all.push(link_failure(0.6));
    all
}

/// A protocol by its label.
pub fn protocol_named(label: &str) -> Option<&'static Protocol> {
    PROTOCOLS.iter().find(|p| p.label == label)
}
