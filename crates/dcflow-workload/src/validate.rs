//! Validation of the workload: turns a [`WorkloadConfig`] and the root
//! `[[flows]]` list into a typed [`Plan`], or a [`ConfigError`] naming the key.
//! `validate`, `resolved` and `generate` all go through [`WorkloadConfig::plan`],
//! so what is accepted is exactly what is generated.

use crate::cdf::EmpiricalCdf;
use crate::config::*;
use crate::dist::{DeadlineDist, SizeDist};
use crate::trace::{read_trace, trace_line, TraceFormat};
use dcflow_core::{ensure, Bytes, ConfigError, Dur};

/// Largest number of flows a Poisson `duration` may be expected to produce.
const MAX_EXPECTED_FLOWS: f64 = 1e8;

/// How the endpoints are chosen, with pattern defaults filled in.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Endpoints {
    Aggregation { receiver: u32, random: bool },
    Stride { stride: u32 },
    Staggered { p: f64, rack: usize },
    Permutation,
    AllToAll,
}

/// A validated, typed workload: what `generate` draws from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Plan {
    Explicit(Vec<ExplicitFlow>),
    Generated {
        endpoints: Endpoints,
        /// `None`: Poisson arrivals until `duration`.
        count: Option<usize>,
        /// Flows per second (Poisson) and the arrival window.
        poisson: Option<(f64, Option<Dur>)>,
        size: SizeDist,
        deadline: Option<(DeadlineDist, Option<Bytes>)>,
        start: Dur,
        /// Root `[[flows]]` given next to a generated pattern: background
        /// flows (D3 §6.1.1 "with background flows", §6.1.2's long flows).
        background: Vec<ExplicitFlow>,
    },
}

fn err(key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::new(key, message)
}

/// `key` (present when `is_some`) is not allowed here.
fn forbid(key: &str, present: bool, why: &str) -> Result<(), ConfigError> {
    ensure(!present, key, format!("does not apply {why}"))
}

fn need<T>(v: Option<T>, key: &str, why: &str) -> Result<T, ConfigError> {
    v.ok_or_else(|| err(key, format!("is required {why}")))
}

impl SizeConfig {
    /// The typed distribution; keys are relative (`size.min`).
    fn dist(&self) -> Result<SizeDist, ConfigError> {
        let kind = match self.dist {
            SizeKind::Fixed => "fixed",
            SizeKind::Uniform => "uniform",
            SizeKind::Exponential => "exponential",
            SizeKind::Pareto => "pareto",
            SizeKind::Cdf => "cdf",
        };
        let why = format!("with dist = \"{kind}\"");
        let allowed: &[&str] = match self.dist {
            SizeKind::Fixed => &["value"],
            SizeKind::Uniform => &["min", "max"],
            SizeKind::Exponential => &["mean"],
            SizeKind::Pareto => &["mean", "shape"],
            SizeKind::Cdf => &["name", "file", "format", "max"],
        };
        let present = [
            ("value", self.value.is_some()),
            ("min", self.min.is_some()),
            ("max", self.max.is_some()),
            ("mean", self.mean.is_some()),
            ("shape", self.shape.is_some()),
            ("name", self.name.is_some()),
            ("file", self.file.is_some()),
            ("format", self.format.is_some()),
        ];
        for (k, p) in present {
            if !allowed.contains(&k) {
                forbid(
                    &format!("size.{k}"),
                    p,
                    &format!("{why} (its keys: {})", allowed.join(", ")),
                )?;
            }
        }
        let positive =
            |v: Bytes, key: &str| ensure(v.0 >= 1, key, "must be at least 1B").map(|_| v);
        Ok(match self.dist {
            SizeKind::Fixed => SizeDist::Fixed(positive(
                need(self.value, "size.value", &why)?,
                "size.value",
            )?),
            SizeKind::Uniform => {
                let min = positive(need(self.min, "size.min", &why)?, "size.min")?;
                let max = need(self.max, "size.max", &why)?;
                ensure(
                    min <= max,
                    "size.min",
                    format!("{min} is larger than size.max = {max}"),
                )?;
                SizeDist::Uniform { min, max }
            }
            SizeKind::Exponential => SizeDist::Exponential {
                mean: positive(need(self.mean, "size.mean", &why)?, "size.mean")?,
            },
            SizeKind::Pareto => {
                let mean = positive(need(self.mean, "size.mean", &why)?, "size.mean")?;
                let shape = need(self.shape, "size.shape", &why)?;
                ensure(
                    shape.is_finite() && shape > 1.0,
                    "size.shape",
                    "must be a number > 1 (the mean is infinite otherwise)",
                )?;
                SizeDist::Pareto { mean, shape }
            }
            SizeKind::Cdf => {
                let cdf = self.cdf(&why)?;
                match self.max {
                    Some(max) => SizeDist::Cdf(cdf.capped(positive(max, "size.max")?.0 as f64)),
                    None => SizeDist::Cdf(cdf),
                }
            }
        })
    }

    /// The CDF of `name` or `file`, before `max` caps it.
    fn cdf(&self, why: &str) -> Result<EmpiricalCdf, ConfigError> {
        match (self.name, &self.file) {
            (Some(name), None) => {
                forbid("size.format", self.format.is_some(), "to a built-in CDF (size.name); it is the layout of size.file")?;
                Ok(EmpiricalCdf::builtin(name))
            }
            (None, Some(file)) => {
                let text = std::fs::read_to_string(file).map_err(|e| {
                    err("size.file", format!("cannot read {}: {e}", file.display()))
                })?;
                let format = self.format.unwrap_or_default();
                let cdf = EmpiricalCdf::parse(&text, format).map_err(|e| {
                    let read_as = self.format.map_or(String::new(), |f| format!(" (read as size.format = \"{}\")", f.name()));
                    err("size.file", format!("{}: {e}{read_as}", file.display()))
                })?;
                ensure(
                    cdf.mean() >= 1.0,
                    "size.file",
                    "the mean size must be at least 1B",
                )?;
                Ok(cdf)
            }
            (Some(_), Some(_)) => Err(err(
                "size.file",
                "give either size.name or size.file, not both",
            )),
            (None, None) => Err(err(
                "size.name",
                format!(
                    "is required {why}: \"web_search\" | \"data_mining\" (or give size.file)"
                ),
            )),
        }
    }
}

impl DeadlineConfig {
    /// The typed distribution and `only_below`; keys are relative (`deadline.min`).
    fn dist(&self) -> Result<(DeadlineDist, Option<Bytes>), ConfigError> {
        let (kind, allowed): (&str, &[&str]) = match self.dist {
            DeadlineKind::Exponential => ("exponential", &["mean", "min"]),
            DeadlineKind::Fixed => ("fixed", &["value"]),
            DeadlineKind::Uniform => ("uniform", &["min", "max"]),
        };
        let why = format!("with dist = \"{kind}\"");
        let present = [
            ("mean", self.mean.is_some()),
            ("min", self.min.is_some()),
            ("max", self.max.is_some()),
            ("value", self.value.is_some()),
        ];
        for (k, p) in present {
            if !allowed.contains(&k) {
                let keys = format!("{why} (its keys: {}, only_below)", allowed.join(", "));
                forbid(&format!("deadline.{k}"), p, &keys)?;
            }
        }
        let positive =
            |v: Dur, key: &str| ensure(v > Dur::ZERO, key, "must be positive").map(|_| v);
        let dist = match self.dist {
            DeadlineKind::Exponential => DeadlineDist::Exponential {
                mean: positive(need(self.mean, "deadline.mean", &why)?, "deadline.mean")?,
                min: self.min.unwrap_or(Dur::ZERO),
            },
            DeadlineKind::Fixed => DeadlineDist::Fixed(positive(
                need(self.value, "deadline.value", &why)?,
                "deadline.value",
            )?),
            DeadlineKind::Uniform => {
                let min = need(self.min, "deadline.min", &why)?;
                let max = positive(need(self.max, "deadline.max", &why)?, "deadline.max")?;
                ensure(
                    min <= max,
                    "deadline.min",
                    format!("{min} is larger than deadline.max = {max}"),
                )?;
                DeadlineDist::Uniform { min, max }
            }
        };
        if let Some(b) = self.only_below {
            ensure(b.0 >= 1, "deadline.only_below", "must be at least 1B")?;
        }
        Ok((dist, self.only_below))
    }
}

/// Checks one explicit flow; `key` is its path (`flows[3]`, or a trace row).
pub(crate) fn check_explicit(
    f: &ExplicitFlow,
    key: &str,
    ctx: &Context,
) -> Result<(), ConfigError> {
    let hosts = ctx.hosts;
    ensure(
        (f.src as usize) < hosts,
        &format!("{key}.src"),
        format!("host {} is outside 0..{}", f.src, hosts.saturating_sub(1)),
    )?;
    ensure(
        (f.dst as usize) < hosts,
        &format!("{key}.dst"),
        format!("host {} is outside 0..{}", f.dst, hosts.saturating_sub(1)),
    )?;
    ensure(
        f.src != f.dst,
        &format!("{key}.dst"),
        format!("equals src ({}); a flow needs two hosts", f.src),
    )?;
    ensure(f.size.0 >= 1, &format!("{key}.size"), "must be at least 1B")?;
    if let Some(d) = f.deadline {
        ensure(
            d > Dur::ZERO,
            &format!("{key}.deadline"),
            "must be positive",
        )?;
    }
    Ok(())
}

impl WorkloadConfig {
    /// Checks the section together with the root `[[flows]]` list.
    pub fn validate(&self, explicit: &[ExplicitFlow], ctx: &Context) -> Result<(), ConfigError> {
        self.plan(explicit, ctx).map(drop)
    }

    /// A copy with every default that applies to this pattern filled in
    /// (flows, receiver, stride, p, deadline.min), for `scenario.resolved.toml`.
    pub fn resolved(
        &self,
        explicit: &[ExplicitFlow],
        ctx: &Context,
    ) -> Result<WorkloadConfig, ConfigError> {
        let plan = self.plan(explicit, ctx)?;
        let mut r = self.clone();
        if let Plan::Generated {
            endpoints, count, ..
        } = plan
        {
            r.flows = count.map(|c| c as u32);
            match endpoints {
                Endpoints::Aggregation { receiver, random } => {
                    r.receiver = Some(receiver);
                    r.senders = Some(if random { SenderOrder::Random } else { SenderOrder::InOrder });
                }
                Endpoints::Stride { stride } => r.stride = Some(stride),
                Endpoints::Staggered { p, .. } => r.p = Some(p),
                Endpoints::Permutation | Endpoints::AllToAll => {}
            }
            if let Some(d) = r
                .deadline
                .as_mut()
                .filter(|d| d.dist == DeadlineKind::Exponential)
            {
                d.min = Some(d.min.unwrap_or(Dur::ZERO));
            }
        }
        Ok(r)
    }

    /// Poisson arrivals per second. With `load`, `λ = load · L · R / (8 · S)`:
    /// `S` is the mean flow size, `R` the host link rate and `L` the number of
    /// access links the pattern loads evenly: 1 for aggregation (the
    /// receiver's link is the bottleneck, as in D3 §6.1.2's Poisson response
    /// flows) and `hosts` otherwise (every host sends and receives alike, the
    /// pFabric/HPCC convention). `None` for simultaneous arrivals.
    pub fn arrival_rate(&self, ctx: &Context) -> Result<Option<f64>, ConfigError> {
        match self.plan(&[], ctx) {
            Ok(Plan::Generated { poisson, .. }) => Ok(poisson.map(|(rate, _)| rate)),
            Ok(Plan::Explicit(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub(crate) fn plan(
        &self,
        explicit: &[ExplicitFlow],
        ctx: &Context,
    ) -> Result<Plan, ConfigError> {
        self.plan_relative(explicit, ctx).map_err(|e| {
            if e.key.starts_with("flows[") {
                e
            } else {
                e.within("workload")
            }
        })
    }

    /// As `plan`, with workload keys relative to the section.
    fn plan_relative(&self, explicit: &[ExplicitFlow], ctx: &Context) -> Result<Plan, ConfigError> {
        if let Some(f) = self.deadline_fraction {
            ensure(f > 0.0 && f <= 1.0, "deadline_fraction", "must be a share in (0, 1]")?;
            ensure(self.deadline.is_some(), "deadline_fraction", "needs workload.deadline (the deadlines it hands out)")?;
        }
        if let Some(f) = self.known_size_fraction {
            ensure((0.0..=1.0).contains(&f), "known_size_fraction", "must be a share in [0, 1]")?;
        }
        let h = ctx.hosts;
        let pat = self.pattern;
        let why = format!("to pattern = \"{}\"", pat.name());
        ensure(
            h >= 2,
            "pattern",
            format!("needs at least 2 hosts, the topology has {h}"),
        )?;
        forbid(
            "receiver",
            self.receiver.is_some() && pat != Pattern::Aggregation,
            &why,
        )?;
        forbid("senders", self.senders.is_some() && pat != Pattern::Aggregation, &why)?;
        forbid(
            "stride",
            self.stride.is_some() && pat != Pattern::Stride,
            &why,
        )?;
        forbid("p", self.p.is_some() && pat != Pattern::Staggered, &why)?;
        forbid(
            "trace",
            self.trace.is_some() && pat != Pattern::Explicit,
            &why,
        )?;
        forbid(
            "trace_format",
            self.trace_format.is_some() && self.trace.is_none(),
            "without trace (it is the format of that file)",
        )?;
        if pat != Pattern::Explicit {
            for (i, f) in explicit.iter().enumerate() {
                check_explicit(f, &format!("flows[{i}]"), ctx)?;
            }
        }
        if pat == Pattern::Explicit {
            return self.plan_explicit(explicit, ctx, &why);
        }
        let endpoints = match pat {
            Pattern::Aggregation => {
                let receiver = self.receiver.unwrap_or(0);
                ensure(
                    (receiver as usize) < h,
                    "receiver",
                    format!("host {receiver} is outside 0..{}", h.saturating_sub(1)),
                )?;
                Endpoints::Aggregation { receiver, random: self.senders == Some(SenderOrder::Random) }
            }
            Pattern::Stride => {
                let stride = self.stride.unwrap_or(1);
                let shift = stride as usize % h;
                ensure(
                    shift != 0,
                    "stride",
                    format!(
                        "must not be a multiple of hosts ({h}): hosts would send to themselves"
                    ),
                )?;
                Endpoints::Stride { stride }
            }
            Pattern::Staggered => {
                let p = self.p.unwrap_or(0.5);
                ensure(
                    (0.0..=1.0).contains(&p),
                    "p",
                    "must be a probability in [0, 1]",
                )?;
                let rack = ctx.hosts_per_rack.ok_or_else(|| {
                    err(
                        "pattern",
                        "staggered needs a topology with racks (tree, leaf_spine, fat_tree)",
                    )
                })?;
                ensure(
                    p == 0.0 || rack >= 2,
                    "p",
                    "is positive but racks hold a single host",
                )?;
                ensure(
                    p == 1.0 || h > rack,
                    "p",
                    "is below 1 but there is only one rack",
                )?;
                Endpoints::Staggered { p, rack }
            }
            Pattern::Permutation => Endpoints::Permutation,
            Pattern::AllToAll => Endpoints::AllToAll,
            Pattern::Explicit => unreachable!("handled above"),
        };
        if let Some(n) = self.flows {
            ensure(n >= 1, "flows", "must be at least 1")?;
        }
        let default_count = if pat == Pattern::Aggregation {
            h - 1
        } else {
            h
        };
        let size = self.size.dist()?;
        let deadline = self
            .deadline
            .as_ref()
            .map(DeadlineConfig::dist)
            .transpose()?;
        let mut count = Some(self.flows.map_or(default_count, |n| n as usize));
        let poisson = match self.arrival {
            Arrival::Simultaneous => {
                let why = "to arrival = \"simultaneous\"";
                forbid("load", self.load.is_some(), why)?;
                forbid("rate", self.rate.is_some(), why)?;
                forbid("duration", self.duration.is_some(), why)?;
                None
            }
            Arrival::Poisson => {
                let rate = match (self.load, self.rate) {
                    (Some(load), None) => {
                        ensure(load > 0.0 && load <= 1.0, "load", "must be in (0, 1]")?;
                        let links = if pat == Pattern::Aggregation {
                            1.0
                        } else {
                            h as f64
                        };
                        load * links * ctx.host_link_rate.as_bps_f64() / (8.0 * size.mean())
                    }
                    (None, Some(rate)) => {
                        ensure(
                            rate.is_finite() && rate > 0.0,
                            "rate",
                            "must be a positive number of flows per second",
                        )?;
                        rate
                    }
                    (Some(_), Some(_)) => {
                        return Err(err("rate", "give either load or rate, not both"))
                    }
                    (None, None) => {
                        return Err(err(
                            "load",
                            "arrival = \"poisson\" needs load (0..1] or rate (flows/s)",
                        ))
                    }
                };
                ensure(
                    rate > 0.0 && rate.is_finite(),
                    "load",
                    "gives no arrivals (host link rate is zero?)",
                )?;
                if let Some(d) = self.duration {
                    ensure(d > Dur::ZERO, "duration", "must be positive")?;
                    if self.flows.is_none() {
                        count = None;
                        let expected = rate * d.as_secs_f64();
                        ensure(
                            expected <= MAX_EXPECTED_FLOWS,
                            "duration",
                            format!("would give about {expected:.0} flows; set flows to cap it"),
                        )?;
                    }
                }
                Some((rate, self.duration))
            }
        };
        Ok(Plan::Generated {
            endpoints,
            count,
            poisson,
            size,
            deadline,
            start: self.start,
            background: explicit.to_vec(),
        })
    }

    fn plan_explicit(
        &self,
        explicit: &[ExplicitFlow],
        ctx: &Context,
        why: &str,
    ) -> Result<Plan, ConfigError> {
        forbid(
            "flows",
            self.flows.is_some(),
            &format!("{why} (the [[flows]] list or trace gives the flows)"),
        )?;
        forbid(
            "arrival",
            self.arrival != Arrival::Simultaneous,
            &format!("{why} (each flow has its start)"),
        )?;
        forbid("load", self.load.is_some(), why)?;
        forbid("rate", self.rate.is_some(), why)?;
        forbid("duration", self.duration.is_some(), why)?;
        forbid(
            "size",
            self.size != SizeConfig::default(),
            &format!("{why} (each flow has its size)"),
        )?;
        forbid(
            "deadline",
            self.deadline.is_some(),
            &format!("{why} (each flow has its deadline)"),
        )?;
        forbid(
            "start",
            self.start != Dur::ZERO,
            &format!("{why} (each flow has its start)"),
        )?;
        match &self.trace {
            Some(_) if !explicit.is_empty() => {
                Err(err("trace", "give either [[flows]] or trace, not both"))
            }
            Some(path) => {
                let format = self.trace_format.unwrap_or(TraceFormat::Dcflow);
                let flows = read_trace(path, format).map_err(|e| err("trace", e.message))?;
                ensure(!flows.is_empty(), "trace", "has no flows")?;
                for (i, f) in flows.iter().enumerate() {
                    // A row's error names the file and line, as a syntax error does.
                    check_explicit(f, "row", ctx).map_err(|e| {
                        let line = trace_line(path, format, i).map_or(String::new(), |l| format!(" line {l}"));
                        let field = e.key.trim_start_matches("row.");
                        err("trace", format!("{}{line}: {field}: {}", path.display(), e.message))
                    })?;
                }
                Ok(Plan::Explicit(flows))
            }
            None => {
                ensure(
                    !explicit.is_empty(),
                    "pattern",
                    "\"explicit\" needs [[flows]] entries or workload.trace",
                )?;
                for (i, f) in explicit.iter().enumerate() {
                    check_explicit(f, &format!("flows[{i}]"), ctx)?;
                }
                Ok(Plan::Explicit(explicit.to_vec()))
            }
        }
    }
}
