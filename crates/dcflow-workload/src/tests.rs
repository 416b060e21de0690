//! Generation and validation through the public API.

use crate::*;
use dcflow_core::{Bytes, Dur, Rate, Time};

fn ctx(hosts: usize) -> Context {
    Context {
        hosts,
        host_link_rate: Rate::gbps(1),
        hosts_per_rack: Some(4),
    }
}

fn cfg(toml_text: &str) -> WorkloadConfig {
    toml::from_str(toml_text).unwrap()
}

fn key_of(c: &WorkloadConfig, explicit: &[ExplicitFlow], hosts: usize) -> String {
    c.validate(explicit, &ctx(hosts)).unwrap_err().key
}

#[test]
fn defaults_are_pdq_query_aggregation() {
    let c = WorkloadConfig::default();
    let flows = generate(&c, &[], &ctx(6), 1).unwrap();
    assert_eq!(flows.len(), 5);
    for f in &flows {
        assert_eq!(f.dst, 0);
        assert!((2000..=198_000).contains(&f.size.0));
        assert_eq!(f.start, Time::ZERO);
        assert_eq!(f.deadline, None);
    }
    let r = c.resolved(&[], &ctx(6)).unwrap();
    assert_eq!((r.flows, r.receiver), (Some(5), Some(0)));
    // The resolved section round-trips through TOML.
    let back: WorkloadConfig = toml::from_str(&toml::to_string(&r).unwrap()).unwrap();
    assert_eq!(back, r);
}

#[test]
fn aggregation_sends_everything_to_the_receiver_round_robin() {
    let c = cfg("flows = 9\nreceiver = 2\nsize = { dist = \"fixed\", value = \"1KB\" }");
    let flows = generate(&c, &[], &ctx(4), 1).unwrap();
    let srcs: Vec<u32> = flows.iter().map(|f| f.src).collect();
    assert_eq!(srcs, [0, 1, 3, 0, 1, 3, 0, 1, 3]);
    assert!(flows.iter().all(|f| f.dst == 2 && f.size == Bytes::kb(1)));
    assert_eq!(
        flows.iter().map(|f| f.id).collect::<Vec<_>>(),
        (0..9).collect::<Vec<_>>()
    );
}

/// PDQ footnote 6: aggregation senders "randomly picked": with `senders =
/// "random"` the first round is a random order of every other host (a new
/// one per seed), later rounds repeat it; the default keeps hosts in order.
#[test]
fn random_aggregation_senders_are_a_permutation_per_seed() {
    let c = cfg("pattern = \"aggregation\"\nflows = 22\nreceiver = 3\nsenders = \"random\"");
    let srcs = |seed| generate(&c, &[], &ctx(12), seed).unwrap().iter().map(|f| f.src).collect::<Vec<u32>>();
    let a = srcs(1);
    let mut first: Vec<u32> = a[..11].to_vec();
    first.sort_unstable();
    assert_eq!(first, (0..12).filter(|&h| h != 3).collect::<Vec<u32>>());
    assert_eq!(a[11..], a[..11]);
    assert_ne!(a, srcs(2));
    assert_ne!(a[..11].to_vec(), first, "in a random order, not host order");
    let in_order = cfg("pattern = \"aggregation\"\nflows = 3\nreceiver = 1");
    let srcs: Vec<u32> = generate(&in_order, &[], &ctx(12), 1).unwrap().iter().map(|f| f.src).collect();
    assert_eq!(srcs, [0, 2, 3]);
    assert_eq!(key_of(&cfg("pattern = \"stride\"\nsenders = \"random\""), &[], 12), "workload.senders");
}

#[test]
fn stride_and_permutation_shapes() {
    let s = generate(&cfg("pattern = \"stride\"\nstride = 3"), &[], &ctx(8), 1).unwrap();
    assert_eq!(s.len(), 8);
    assert!(s.iter().all(|f| f.dst == (f.src + 3) % 8));
    let p = generate(&cfg("pattern = \"permutation\""), &[], &ctx(16), 4).unwrap();
    let mut dsts: Vec<u32> = p.iter().map(|f| f.dst).collect();
    assert!(p.iter().all(|f| f.src != f.dst));
    assert_eq!(
        p.iter().map(|f| f.src).collect::<Vec<_>>(),
        (0..16).collect::<Vec<_>>()
    );
    dsts.sort();
    assert_eq!(dsts, (0..16).collect::<Vec<_>>());
}

#[test]
fn same_seed_same_flows_other_seed_other_flows() {
    let c = cfg(
        "pattern = \"all_to_all\"\nflows = 50\narrival = \"poisson\"\nload = 0.5\n\
                 size = { dist = \"cdf\", name = \"web_search\" }\n\
                 deadline = { dist = \"exponential\", mean = \"20ms\", min = \"3ms\" }",
    );
    let a = generate(&c, &[], &ctx(8), 7).unwrap();
    assert_eq!(a, generate(&c, &[], &ctx(8), 7).unwrap());
    let b = generate(&c, &[], &ctx(8), 8).unwrap();
    assert_ne!(
        a.iter().map(|f| f.size).collect::<Vec<_>>(),
        b.iter().map(|f| f.size).collect::<Vec<_>>()
    );
    assert_ne!(
        a.iter().map(|f| f.start).collect::<Vec<_>>(),
        b.iter().map(|f| f.start).collect::<Vec<_>>()
    );
    assert_ne!(
        a.iter().map(|f| (f.src, f.dst)).collect::<Vec<_>>(),
        b.iter().map(|f| (f.src, f.dst)).collect::<Vec<_>>()
    );
    // Separate streams: a new deadline rule leaves sizes, starts and endpoints alone.
    let mut c2 = c.clone();
    c2.deadline.as_mut().unwrap().only_below = Some(Bytes::kb(100));
    let d = generate(&c2, &[], &ctx(8), 7).unwrap();
    for (x, y) in a.iter().zip(&d) {
        assert_eq!(
            (x.src, x.dst, x.size, x.start),
            (y.src, y.dst, y.size, y.start)
        );
        assert_eq!(y.deadline.is_some(), y.size < Bytes::kb(100));
        if y.deadline.is_some() {
            assert_eq!(x.deadline, y.deadline);
        }
    }
}

#[test]
fn poisson_load_matches_the_offered_load() {
    // 10 hosts at 1 Gbps, fixed 125 KB flows, load 0.4: λ = 0.4·10·1e9 / (8·125e3) = 4000/s.
    let c = cfg(
        "pattern = \"all_to_all\"\narrival = \"poisson\"\nload = 0.4\nduration = \"5s\"\n\
                 start = \"1ms\"\nsize = { dist = \"fixed\", value = \"125KB\" }",
    );
    assert_eq!(c.arrival_rate(&ctx(10)).unwrap(), Some(4000.0));
    let flows = generate(&c, &[], &ctx(10), 3).unwrap();
    let n = flows.len() as f64;
    assert!((n - 20_000.0).abs() < 3.0 * 20_000f64.sqrt() + 1.0, "{n}");
    assert!(flows.windows(2).all(|w| w[0].start <= w[1].start));
    assert!(flows[0].start > Time(Dur::ms(1).0));
    assert!(flows.last().unwrap().start < Time(Dur::ms(5001).0));
    let bytes: u64 = flows.iter().map(|f| f.size.0).sum();
    let offered = bytes as f64 * 8.0 / 5.0 / (10.0 * 1e9);
    assert!((offered - 0.4).abs() < 0.01, "{offered}");
    // Aggregation loads the receiver's link: λ = load · R / (8 S).
    let a =
        cfg("arrival = \"poisson\"\nload = 0.4\nsize = { dist = \"fixed\", value = \"125KB\" }");
    assert_eq!(a.arrival_rate(&ctx(10)).unwrap(), Some(400.0));
    let r = cfg("arrival = \"poisson\"\nrate = 1000.0\nflows = 2000");
    let f = generate(&r, &[], &ctx(4), 1).unwrap();
    assert_eq!(f.len(), 2000);
    let span = f.last().unwrap().start.as_secs_f64();
    assert!((span - 2.0).abs() < 0.15, "{span}");
}

#[test]
fn explicit_flows_are_sorted_by_start_and_renumbered() {
    let list: Vec<ExplicitFlow> = toml::from_str::<toml::Table>(
        "[[flows]]\nsrc = 1\ndst = 0\nsize = \"1MB\"\nstart = \"2ms\"\ndeadline = \"10ms\"\n\
         [[flows]]\nsrc = 2\ndst = 0\nsize = \"2KB\"\n",
    )
    .unwrap()["flows"]
        .clone()
        .try_into()
        .unwrap();
    let c = cfg("pattern = \"explicit\"");
    let f = generate(&c, &list, &ctx(3), 1).unwrap();
    assert_eq!(
        (f[0].id, f[0].src, f[0].size, f[0].start),
        (0, 2, Bytes::kb(2), Time::ZERO)
    );
    assert_eq!(
        (f[1].id, f[1].src, f[1].deadline),
        (1, 1, Some(Dur::ms(10)))
    );
    assert_eq!(f[1].start, Time(Dur::ms(2).0));
}

#[test]
fn trace_round_trips() {
    let c = cfg("pattern = \"all_to_all\"\nflows = 40\narrival = \"poisson\"\nrate = 12345.0\n\
                 size = { dist = \"exponential\", mean = \"50KB\" }\n\
                 deadline = { dist = \"uniform\", min = \"1ms\", max = \"9ms\" , only_below = \"60KB\" }");
    let flows = generate(&c, &[], &ctx(5), 2).unwrap();
    let path =
        std::env::temp_dir().join(format!("dcflow-workload-trace-{}.csv", std::process::id()));
    std::fs::write(&path, format_trace(&flows)).unwrap();
    let replay = WorkloadConfig {
        pattern: Pattern::Explicit,
        trace: Some(path.clone()),
        ..Default::default()
    };
    let back = generate(&replay, &[], &ctx(5), 99).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(back, flows);
    assert!(
        flows.iter().any(|f| f.deadline.is_none()) && flows.iter().any(|f| f.deadline.is_some())
    );
}

#[test]
fn cdf_file_sizes_follow_the_file() {
    let path = std::env::temp_dir().join(format!("dcflow-workload-cdf-{}.csv", std::process::id()));
    std::fs::write(
        &path,
        "size_bytes,cumulative_probability\n1000,0.5\n3000,1\n",
    )
    .unwrap();
    let mut c = WorkloadConfig {
        flows: Some(1000),
        ..Default::default()
    };
    c.size = SizeConfig {
        dist: SizeKind::Cdf,
        file: Some(path.clone()),
        min: None,
        max: None,
        ..Default::default()
    };
    let flows = generate(&c, &[], &ctx(3), 1).unwrap();
    std::fs::write(&path, "1000,0.5\n900,1\n").unwrap();
    let e = c.validate(&[], &ctx(3)).unwrap_err();
    std::fs::remove_file(&path).unwrap();
    let small = flows.iter().filter(|f| f.size.0 == 1000).count();
    assert!((400..600).contains(&small), "{small}");
    assert!(flows.iter().all(|f| (1000..=3000).contains(&f.size.0)));
    assert_eq!(e.key, "workload.size.file");
    assert!(e.message.contains("row 1"), "{}", e.message);
}

/// `size.max` caps a CDF's sizes, and the Poisson load counts the capped
/// mean: data mining capped at 30 MB has a mean of about 1.45 MB, not 7.47 MB.
#[test]
fn capped_cdf_sizes_and_their_load() {
    let text = "pattern = \"all_to_all\"\narrival = \"poisson\"\nload = 0.5\nflows = 20000\n";
    let capped = cfg(&format!("{text}size = {{ dist = \"cdf\", name = \"data_mining\", max = \"30MB\" }}"));
    let full = cfg(&format!("{text}size = {{ dist = \"cdf\", name = \"data_mining\" }}"));
    let mean = EmpiricalCdf::builtin(CdfName::DataMining).capped(30e6).mean();
    assert!((1.4e6..1.5e6).contains(&mean), "{mean}");
    let rate = |c: &WorkloadConfig| c.arrival_rate(&ctx(10)).unwrap().unwrap();
    assert!((rate(&capped) - 0.5 * 10.0 * 1e9 / (8.0 * mean)).abs() < 1e-6);
    let (a, b) = (generate(&capped, &[], &ctx(10), 7).unwrap(), generate(&full, &[], &ctx(10), 7).unwrap());
    assert!(a.iter().zip(&b).all(|(a, b)| a.size == b.size.min(Bytes::mb(30))), "same draws, capped");
    assert!(b.iter().any(|f| f.size > Bytes::mb(30)) && a.iter().any(|f| f.size == Bytes::mb(30)));
}

#[test]
fn every_validation_error_names_its_key() {
    let cases = [
        (
            "size = { dist = \"uniform\", min = \"5KB\", max = \"1KB\" }",
            "workload.size.min",
        ),
        (
            "size = { dist = \"uniform\", min = \"0B\", max = \"1KB\" }",
            "workload.size.min",
        ),
        (
            "size = { dist = \"fixed\", value = \"1KB\", max = \"1KB\" }",
            "workload.size.max",
        ),
        ("size = { dist = \"fixed\" }", "workload.size.value"),
        (
            "size = { dist = \"pareto\", mean = \"1KB\", shape = 1.0 }",
            "workload.size.shape",
        ),
        ("size = { dist = \"cdf\" }", "workload.size.name"),
        (
            "size = { dist = \"cdf\", name = \"data_mining\", max = \"0B\" }",
            "workload.size.max",
        ),
        (
            "size = { dist = \"cdf\", file = \"/nonexistent/cdf.csv\" }",
            "workload.size.file",
        ),
        (
            "deadline = { dist = \"exponential\", mean = \"0ms\" }",
            "workload.deadline.mean",
        ),
        (
            "deadline = { dist = \"fixed\", value = \"1ms\", mean = \"2ms\" }",
            "workload.deadline.mean",
        ),
        (
            "deadline = { dist = \"uniform\", min = \"5ms\", max = \"1ms\" }",
            "workload.deadline.min",
        ),
        ("arrival = \"poisson\"\nload = 1.5", "workload.load"),
        ("arrival = \"poisson\"\nload = 0.0", "workload.load"),
        ("arrival = \"poisson\"\nrate = -3.0", "workload.rate"),
        ("arrival = \"poisson\"", "workload.load"),
        (
            "arrival = \"poisson\"\nload = 0.5\nrate = 10.0",
            "workload.rate",
        ),
        ("load = 0.5", "workload.load"),
        ("duration = \"1s\"", "workload.duration"),
        ("flows = 0", "workload.flows"),
        ("receiver = 6", "workload.receiver"),
        ("pattern = \"stride\"\nreceiver = 1", "workload.receiver"),
        ("pattern = \"stride\"\nstride = 12", "workload.stride"),
        ("stride = 2", "workload.stride"),
        ("p = 0.5", "workload.p"),
        ("pattern = \"staggered\"\np = 1.5", "workload.p"),
        ("trace = \"x.csv\"", "workload.trace"),
        ("pattern = \"explicit\"", "workload.pattern"),
        ("pattern = \"explicit\"\nflows = 3", "workload.flows"),
        (
            "pattern = \"explicit\"\nsize = { dist = \"fixed\", value = \"1KB\" }",
            "workload.size",
        ),
        (
            "pattern = \"explicit\"\ntrace = \"/nonexistent/t.csv\"",
            "workload.trace",
        ),
    ];
    for (text, key) in cases {
        assert_eq!(key_of(&cfg(text), &[], 6), key, "{text}");
    }
    let one = |src, dst, size| ExplicitFlow {
        src,
        dst,
        size: Bytes(size),
        start: Dur::ZERO,
        deadline: None,
    };
    let explicit = cfg("pattern = \"explicit\"");
    assert_eq!(
        key_of(&explicit, &[one(1, 0, 10), one(9, 0, 10)], 6),
        "flows[1].src"
    );
    assert_eq!(key_of(&explicit, &[one(1, 6, 10)], 6), "flows[0].dst");
    assert_eq!(key_of(&explicit, &[one(2, 2, 10)], 6), "flows[0].dst");
    assert_eq!(key_of(&explicit, &[one(1, 2, 0)], 6), "flows[0].size");
    // Background flows next to a generated pattern are checked the same way.
    assert_eq!(
        key_of(&WorkloadConfig::default(), &[one(1, 9, 10)], 6),
        "flows[0].dst"
    );
    assert_eq!(
        key_of(&WorkloadConfig::default(), &[], 1),
        "workload.pattern"
    );
    let no_racks = Context {
        hosts_per_rack: None,
        ..ctx(8)
    };
    assert_eq!(
        cfg("pattern = \"staggered\"")
            .validate(&[], &no_racks)
            .unwrap_err()
            .key,
        "workload.pattern"
    );
    // Unknown keys are rejected by the parser, with the key in the message.
    let e = toml::from_str::<WorkloadConfig>("flow = 3")
        .unwrap_err()
        .to_string();
    assert!(e.contains("flow"), "{e}");
    let e = toml::from_str::<WorkloadConfig>("size = { dist = \"fixed\", vlaue = \"1KB\" }")
        .unwrap_err()
        .to_string();
    assert!(e.contains("vlaue"), "{e}");
}

/// `[[flows]]` next to a generated pattern are background flows (D3 §6.1.1
/// "with background flows"): they join the generated flows, ids in start order.
#[test]
fn background_flows_join_a_generated_pattern() {
    let ctx = Context { hosts: 4, host_link_rate: Rate::gbps(1), hosts_per_rack: None };
    let agg = cfg("pattern = \"aggregation\"\nflows = 3\nstart = \"5ms\"");
    let long = ExplicitFlow { src: 1, dst: 0, size: Bytes(50_000_000), start: Dur::ZERO, deadline: None };
    let flows = generate(&agg, std::slice::from_ref(&long), &ctx, 1).unwrap();
    assert_eq!(flows.len(), 4);
    assert_eq!((flows[0].src, flows[0].dst, flows[0].size), (long.src, long.dst, long.size));
    assert_eq!(flows[0].start, Time::ZERO, "the background flow starts first and gets id 0");
    assert!(flows[1..].iter().all(|f| f.dst == 0 && f.start == Time(Dur::ms(5).0)));
    assert_eq!(flows.iter().map(|f| f.id).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
}

/// Karuna's flow types: `deadline_fraction` of the flows get a deadline,
/// `known_size_fraction` of the others a known size, each drawn on its own
/// stream, so the deadlines the fraction keeps are those it would hand out
/// anyway and the known sizes never shift the deadlines.
#[test]
fn flow_type_shares_follow_their_keys() {
    let base = "pattern = \"all_to_all\"\nflows = 4000\ndeadline = { dist = \"fixed\", value = \"10ms\" }\n";
    let all = generate(&cfg(base), &[], &ctx(8), 1).unwrap();
    assert!(all.iter().all(|f| f.deadline.is_some() && !f.size_known));
    let typed = cfg(&format!("{base}deadline_fraction = 0.25\nknown_size_fraction = 0.5\n"));
    let flows = generate(&typed, &[], &ctx(8), 1).unwrap();
    let share = |n: usize, of: usize| n as f64 / of as f64;
    let deadline = flows.iter().filter(|f| f.deadline.is_some()).count();
    let known = flows.iter().filter(|f| f.size_known).count();
    assert!((share(deadline, 4000) - 0.25).abs() < 0.03, "{deadline} deadline flows");
    assert!((share(known, 4000 - deadline) - 0.5).abs() < 0.03, "{known} known sizes");
    assert!(flows.iter().all(|f| !(f.size_known && f.deadline.is_some())), "a deadline flow is type 1");
    let same = |a: &[FlowSpec], b: &[FlowSpec]| a.iter().zip(b).all(|(x, y)| (x.src, x.dst, x.size, x.start) == (y.src, y.dst, y.size, y.start));
    assert!(same(&all, &flows), "the shares move no size, start or endpoint");
    assert_eq!(generate(&typed, &[], &ctx(8), 1).unwrap(), flows);
    let no_deadline = cfg("deadline_fraction = 0.5\n");
    assert_eq!(key_of(&no_deadline, &[], 6), "workload.deadline_fraction");
    assert_eq!(key_of(&cfg("known_size_fraction = -0.1\n"), &[], 6), "workload.known_size_fraction");
}
