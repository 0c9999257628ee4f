//! `record-sizes`: how big each calling-context record is, against the
//! exhaustive calling context tree it approximates.
//!
//! Two papers argue from size. Arnold & Sweeney 2000 (section 1) build
//! the approximate CCT (ACCT) because "the CCT can also become quite
//! large"; Whaley 2000 (section 3) says the partial CCT (PCCT) "occupies
//! on the order of kilobytes, while the CCT can take megabytes or more",
//! and keeps it small by purging it periodically (section 5.4). Neither
//! size is a figure of the papers, so this experiment measures them on
//! the Are We Fast Yet suite:
//!
//! - the exhaustive CCT (`--profile=exhaustive --record=cct`);
//! - the ACCT of the paper's Figure 3 (`--profile=counter --every=59
//!   --record=acct`, last-edge), with each way of keeping the sampled bit
//!   (`--sampled-bit=mark` and `return-address`);
//! - the PCCT (`--profile=timer --clock=virtual --interval=100us
//!   --record=pcct`), without and with `--purge=N` at two periods.
//!
//! A record's size is its contexts (the profile's `cct` section: the live
//! nodes at the end of the run, the root included) times the bytes of one
//! node as laid out in memory ([`Record::node_bytes`]): a profile reports
//! nodes, not bytes. Every sampled record is also scored with `vm
//! compare`'s cct-overlap against the exhaustive CCT, which says what a
//! purge costs in accuracy. All runs are under the virtual clock or a
//! call counter with a fixed seed, so the CSV is the same on every run.

use profile::{metrics, Profile};

use crate::claims::Claim;
use crate::csv::{num, Csv};
use crate::runner::par_map;
use crate::suite::Program;
use crate::table::Table;
use crate::{markdown, plot, Context, Error};

/// One record measured: its CSV key, its label, its `vm run` options and
/// the bytes one of its nodes takes.
pub struct Record {
    /// The CSV's name for it.
    pub key: &'static str,
    /// The figure's and tables' name for it.
    pub label: &'static str,
    /// The options of `vm run`.
    pub args: &'static [&'static str],
    /// Bytes per context in memory: a CCT node (`profiler/src/records/
    /// cct/tree.rs`, 32 bytes, pinned by its test `a_node_is_32_bytes`;
    /// the ACCT uses the same tree), plus for the exhaustive tree the
    /// 8-byte cycle count it keeps per node; a PCCT node
    /// (`profiler/src/records/pcct/tree.rs`, 40 bytes, pinned by its test
    /// `a_node_is_40_bytes`) plus an entry of 16 bytes (a count and two
    /// links) in each of its two hot lists (`pcct/hot.rs`).
    pub node_bytes: u64,
}

/// The purge periods, in samples of a thread.
const PURGES: [u64; 2] = [100, 20];

/// The records, the exhaustive tree first.
pub const RECORDS: [Record; 6] = [
    Record {
        key: "cct",
        label: "exhaustive CCT",
        args: &["--profile=exhaustive", "--record=cct"],
        node_bytes: 40,
    },
    Record {
        key: "acct-mark",
        label: "ACCT, sampled bit in the mark",
        args: &[
            "--profile=counter",
            "--every=59",
            "--seed=1",
            "--record=acct",
            "--sampled-bit=mark",
        ],
        node_bytes: 32,
    },
    Record {
        key: "acct-return-address",
        label: "ACCT, sampled bit by return address",
        args: &[
            "--profile=counter",
            "--every=59",
            "--seed=1",
            "--record=acct",
            "--sampled-bit=return-address",
        ],
        node_bytes: 32,
    },
    Record {
        key: "pcct",
        label: "PCCT",
        args: &[
            "--profile=timer",
            "--clock=virtual",
            "--interval=100us",
            "--seed=1",
            "--record=pcct",
        ],
        node_bytes: 72,
    },
    Record {
        key: "pcct-purge-100",
        label: "PCCT, --purge=100",
        args: &[
            "--profile=timer",
            "--clock=virtual",
            "--interval=100us",
            "--seed=1",
            "--record=pcct",
            "--purge=100",
        ],
        node_bytes: 72,
    },
    Record {
        key: "pcct-purge-20",
        label: "PCCT, --purge=20",
        args: &[
            "--profile=timer",
            "--clock=virtual",
            "--interval=100us",
            "--seed=1",
            "--record=pcct",
            "--purge=20",
        ],
        node_bytes: 72,
    },
];

/// The CSV's columns.
const COLUMNS: [&str; 6] = [
    "program",
    "record",
    "samples",
    "nodes",
    "bytes",
    "cct_overlap",
];

/// One record of one program: its samples, its contexts and its score.
#[derive(Clone, Copy, Debug)]
struct Size {
    samples: u64,
    nodes: u64,
    overlap: f64,
}

impl Size {
    /// Its size in bytes as a record of kind `r`.
    fn bytes(&self, r: &Record) -> u64 {
        self.nodes * r.node_bytes
    }
}

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<markdown::Page, Error> {
    let programs = ctx.suite()?;
    let purges: Vec<String> = PURGES.iter().map(|p| p.to_string()).collect();
    let mut csv = Csv::experiment(
        ctx,
        &format!(
            "exact: --profile=exhaustive --record=cct; acct: --profile=counter --every=59 --seed=1; \
             pcct: --profile=timer --clock=virtual --interval=100us --seed=1, --purge={}; \
             bytes: nodes x bytes per node ({})",
            purges.join(","),
            RECORDS
                .iter()
                .map(|r| format!("{} {}", r.key, r.node_bytes))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        &COLUMNS,
    )?;
    let sizes = measure(ctx, &programs)?;
    for (prog, per) in programs.iter().zip(&sizes) {
        for (r, s) in RECORDS.iter().zip(per) {
            csv.row(&[
                prog.name.clone(),
                r.key.into(),
                s.samples.to_string(),
                s.nodes.to_string(),
                s.bytes(r).to_string(),
                num(s.overlap, 2),
            ])?;
        }
    }
    let figures = draw(ctx, &programs, &sizes)?;
    let table = results_table(&programs, &sizes);
    Ok(markdown::Page {
        method: format!(
            "Arnold & Sweeney (section 1) and Whaley (section 3) argue that the exhaustive \
             calling context tree is large and that their sampled records are small; neither \
             paper gives the sizes as a figure. Here every program of the suite ({} of them) is \
             run once per record: the exhaustive CCT (`--profile=exhaustive --record=cct`); the \
             ACCT of Arnold & Sweeney's Figure 3 (`--profile=counter --every=59 --record=acct`, \
             last-edge), with the sampled bit kept in the frame's mark bit and by replacing \
             its return address (`--sampled-bit=mark`, `return-address`); Whaley's PCCT \
             (`--profile=timer --clock=virtual --interval=100us --record=pcct`, buffer 16) \
             without a purge and with `--purge=N`, N = {} samples. A record's size is its \
             contexts at the end of the run (the nodes of the profile's `cct` section, the \
             root included) times the bytes of one node in memory: a CCT node is 32 bytes, \
             and the exhaustive tree keeps 8 more per node (its cycle count), 40; the ACCT is \
             the same tree, 32; a PCCT node is 40 bytes plus an entry of 16 (a count, two \
             links) in each of its two hot lists, 72. A profile reports nodes, not bytes; a \
             purged PCCT's arena keeps the nodes it freed for reuse, so its bytes are those \
             of the live nodes, not of the arena at its largest. Each \
             sampled record is scored with `vm compare`'s cct-overlap against the exhaustive \
             CCT (a PCCT weights an edge by the samples that found it new, Whaley's \
             increment-all-new-edges, so even unpurged it does not reach 100).",
            programs.len(),
            purges.join(" and "),
        ),
        results: format!(
            "Contexts, bytes and cct-overlap with the exhaustive CCT per program and record:\n\n\
             {table}"
        ),
        discussion: discussion(&programs, &sizes),
        table,
        figures,
    })
}

/// Every record of every program, `[program][record]`, in parallel.
fn measure(ctx: &Context, programs: &[Program]) -> Result<Vec<Vec<Size>>, Error> {
    let vm = ctx.vm();
    let jobs: Vec<(usize, usize)> = (0..programs.len())
        .flat_map(|p| (0..RECORDS.len()).map(move |r| (p, r)))
        .collect();
    let mut profiles: Vec<Vec<Option<Profile>>> = vec![vec![None; RECORDS.len()]; programs.len()];
    let mut progress = crate::progress::Progress::new(ctx.exp.name, "records", jobs.len() as u64);
    par_map(
        ctx.opts.jobs,
        &jobs,
        |&(p, r)| {
            let args: Vec<String> = RECORDS[r].args.iter().map(|s| s.to_string()).collect();
            let tag = format!("{}-{}", programs[p].name, RECORDS[r].key);
            Ok(vm.profile(&programs[p], &args, &tag)?.0)
        },
        |i, profile| {
            let (p, r) = jobs[i];
            progress.step(&programs[p].name);
            profiles[p][r] = Some(profile);
            Ok(())
        },
    )?;
    progress.finish();
    Ok(profiles
        .into_iter()
        .map(|per| {
            let per: Vec<Profile> = per.into_iter().flatten().collect();
            per.iter()
                .map(|p| Size {
                    samples: p.run.samples,
                    nodes: p.cct.as_ref().map_or(0, |c| c.len() as u64),
                    overlap: metrics::cct_overlap(p, &per[0]).value().unwrap_or(f64::NAN),
                })
                .collect()
        })
        .collect())
}

/// The table: per program, each record's contexts and bytes, and the
/// sampled ones' overlap.
fn results_table(programs: &[Program], sizes: &[Vec<Size>]) -> String {
    let mut rows = Vec::new();
    for (prog, per) in programs.iter().zip(sizes) {
        for (k, (r, s)) in RECORDS.iter().zip(per).enumerate() {
            rows.push(vec![
                if k == 0 {
                    prog.name.clone()
                } else {
                    String::new()
                },
                r.label.into(),
                s.samples.to_string(),
                s.nodes.to_string(),
                kib(s.bytes(r)),
                if k == 0 {
                    "(reference)".into()
                } else {
                    num(s.overlap, 1)
                },
            ]);
        }
    }
    markdown::table(
        &[
            "program",
            "record",
            "samples",
            "contexts",
            "KiB",
            "cct-overlap",
        ],
        &rows,
    )
}

/// Bytes as KiB with one decimal.
fn kib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1024.0)
}

/// A column of record `r`, per program, in the programs' order.
fn column(t: &Table, r: &str, col: &str) -> Vec<(String, f64)> {
    t.select(&[("record", r)])
        .iter()
        .map(|row| (row.get("program").to_string(), row.num(col)))
        .collect()
}

/// `a / b` per program of two columns in the same order (`b` 0 left out).
fn ratios(a: &[(String, f64)], b: &[(String, f64)]) -> Vec<f64> {
    a.iter()
        .zip(b)
        .filter(|(_, y)| y.1 > 0.0)
        .map(|(x, y)| x.1 / y.1)
        .collect()
}

/// The programs of `v` whose value `keep` accepts, comma-separated.
fn where_(v: &[(String, f64)], keep: impl Fn(f64) -> bool) -> String {
    let names: Vec<&str> = v
        .iter()
        .filter(|x| keep(x.1))
        .map(|x| x.0.as_str())
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// The papers' claims on size, judged on the CSV.
pub fn claims(t: &Table) -> Vec<Claim> {
    let small = t.quick();
    let why = "a --quick run has three programs at their smallest sizes";
    let cct_nodes = column(t, "cct", "nodes");
    let cct_bytes = column(t, "cct", "bytes");
    let acct = column(t, "acct-mark", "nodes");
    let fewer = acct
        .iter()
        .zip(&cct_nodes)
        .filter(|(a, c)| a.1 < c.1)
        .count();
    let bytes_ratio = ratios(&column(t, "acct-mark", "bytes"), &cct_bytes);
    let mut out = vec![Claim::judged(
        "the ACCT (every 59th call) holds fewer contexts than the exhaustive CCT, on most programs",
        "\"the CCT can also become quite large\" (section 1): a sampled tree is smaller",
        format!(
            "fewer on {fewer} of {}; median {:.0}% of the CCT's bytes",
            acct.len(),
            100.0 * crate::stats::median(&bytes_ratio)
        ),
        2 * fewer > acct.len(),
    )
    .unless_small(small, why)
    .gap()];
    let ret = column(t, "acct-return-address", "nodes");
    let same = acct.iter().zip(&ret).filter(|(a, b)| a.1 == b.1).count();
    out.push(Claim::judged(
        "both ways of keeping the sampled bit build trees of the same size",
        "the mark bit and a known return address are two ways to the same sampled bit (section 3)",
        format!("same contexts on {same} of {}", acct.len()),
        same == acct.len() && !acct.is_empty(),
    ));
    let pcct = column(t, "pcct", "bytes");
    let over = where_(&pcct, |b| b >= 100.0 * 1024.0);
    let largest = pcct.iter().fold(0f64, |a, x| a.max(x.1));
    out.push(
        Claim::judged(
            "the PCCT takes kilobytes: under 100 KiB on every program",
            "\"the PCCT occupies on the order of kilobytes\" (section 3)",
            format!(
                "at most {:.0} KiB; 100 KiB or more on {over}",
                largest / 1024.0
            ),
            over == "none" && !pcct.is_empty(),
        )
        .unless_small(small, why)
        .gap(),
    );
    let mega = cct_bytes.iter().filter(|x| x.1 >= 1024.0 * 1024.0).count();
    out.push(
        Claim::judged(
            "the exhaustive CCT takes a megabyte or more, on most programs",
            "\"the CCT can take megabytes or more\" (section 3)",
            format!(
                "on {mega} of {} ({}); the median {:.0} KiB",
                cct_bytes.len(),
                where_(&cct_bytes, |b| b >= 1024.0 * 1024.0),
                crate::stats::median(&cct_bytes.iter().map(|x| x.1).collect::<Vec<_>>()) / 1024.0
            ),
            2 * mega > cct_bytes.len(),
        )
        .unless_small(small, why)
        .gap(),
    );
    out.extend(purge_claims(t, small, why));
    out
}

/// Whaley's purge: it keeps the PCCT smaller; what it costs in overlap.
fn purge_claims(t: &Table, small: bool, why: &str) -> Vec<Claim> {
    let pcct = column(t, "pcct", "nodes");
    let whole = column(t, "pcct", "cct_overlap");
    PURGES
        .iter()
        .map(|n| {
            let key = format!("pcct-purge-{n}");
            let purged = column(t, &key, "nodes");
            let grew: Vec<(String, f64)> = purged
                .iter()
                .zip(&pcct)
                .map(|(a, b)| (a.0.clone(), a.1 - b.1))
                .collect();
            let larger = where_(&grew, |d| d > 0.0);
            let shrink: Vec<f64> = ratios(&purged, &pcct)
                .iter()
                .map(|r| 100.0 * (1.0 - r))
                .collect();
            let cost: Vec<(String, f64)> = column(t, &key, "cct_overlap")
                .iter()
                .zip(&whole)
                .map(|(a, b)| (a.0.clone(), b.1 - a.1))
                .collect();
            let worst = cost
                .iter()
                .fold((String::new(), f64::NEG_INFINITY), |a, x| if x.1 > a.1 { x.clone() } else { a });
            let claim = Claim::judged(
                format!("--purge={n} keeps the PCCT no larger, on every program"),
                "\"because we periodically purge the profile buffer, the buffer is small\" (section 5.4)",
                format!(
                    "larger on {larger}; median {:.0}% fewer contexts; cct-overlap down a median {:.1} points, most on {} ({:.1})",
                    crate::stats::median(&shrink),
                    crate::stats::median(&cost.iter().map(|x| x.1).collect::<Vec<_>>()),
                    worst.0,
                    worst.1
                ),
                larger == "none" && !purged.is_empty(),
            )
            .unless_small(small, why);
            claim
        })
        .collect()
}

/// What the numbers say, computed from them.
fn discussion(programs: &[Program], sizes: &[Vec<Size>]) -> String {
    let named = |keep: &dyn Fn(&[Size]) -> bool| -> String {
        let v: Vec<&str> = programs
            .iter()
            .zip(sizes)
            .filter(|(_, s)| keep(s))
            .map(|(p, _)| p.name.as_str())
            .collect();
        if v.is_empty() {
            "none".into()
        } else {
            v.join(", ")
        }
    };
    let all_sampled = named(&|s| s[1].nodes == s[0].nodes);
    let pcct_bigger = named(&|s| s[3].nodes > s[0].nodes);
    let pcct_lost = named(&|s| s[3].overlap < 1.0);
    let pcct_heavier =
        named(&|s| s[3].nodes < s[0].nodes && s[3].bytes(&RECORDS[3]) > s[0].bytes(&RECORDS[0]));
    let purge_bigger = named(&|s| s[4].nodes > s[3].nodes);
    let largest = programs
        .iter()
        .zip(sizes)
        .max_by_key(|(_, s)| s[0].nodes)
        .map(|(p, s)| (p.name.clone(), s[0].nodes, s[0].bytes(&RECORDS[0])));
    let Some((name, nodes, bytes)) = largest else {
        return String::new();
    };
    format!(
        "**The CCT is small here.** An exhaustive CCT's size is fixed by the program's \
         distinct call paths, not by how long it runs: the suite's largest is {name}'s, {nodes} \
         contexts ({} KiB). The papers' Java programs (SPECjvm98, javap) have thousands of \
         methods and trees of megabytes; so the claim that the CCT takes megabytes is about \
         their programs, and holds here only where a recursion makes a context per path.\n\n\
         **The ACCT finds every context of small trees.** At one sample every 59 calls a run \
         of about 10^8 cycles takes tens of thousands of samples, more than most programs \
         have contexts, and each sample splices in every frame pushed since the previous \
         one; so the ACCT holds every context of the CCT on {all_sampled}. Its bytes are \
         then smaller only by the exhaustive tree's per-node cycle count. Sparser sampling \
         leaves contexts out: with `--every=1559` (Arnold & Sweeney's Figure 5; `vm run \
         programs/awfy/list.bc --set inner=240 --profile=counter --every=1559 --seed=1 \
         --record=acct`) list's ACCT has 1,820 of its 5,703 contexts.\n\n\
         **The PCCT's buffer of 16 frames.** Where a walk is cut by `--max-walk` (16, \
         Whaley's buffer) before it reaches a marked frame, its frames start a detached \
         subtree (Whaley's Figure 10), and deep recursions cut walks again and again; \
         detached contexts match none of the CCT's. The PCCT holds more contexts than the \
         exhaustive CCT on {pcct_bigger}, and its cct-overlap is under 1 on {pcct_lost}. \
         `vm run programs/awfy/json.bc --set inner=14 --profile=timer --clock=virtual \
         --interval=100us --seed=1 --record=pcct --max-walk=64` gives 289 contexts, none \
         detached, against 2,199 with the default buffer (and a cct-overlap of 23 instead of \
         0). Where the PCCT has fewer contexts than the CCT it can still take more bytes, \
         since its node carries two hot-list entries (72 bytes against 40): on \
         {pcct_heavier}. Its cct-overlap stays low even unpurged because it weights an edge \
         by the samples that found it new, not by its calls.\n\n\
         **Purging.** A purge drops the contexts no recent sample reached, so the purged \
         PCCT describes the last N samples rather than the run, and its overlap with the \
         whole run's CCT falls as it shrinks. On {purge_bigger}, `--purge=100` ends with more \
         contexts than the unpurged PCCT holds over the whole run. Why is not traced yet: \
         after a purge, a frame marked with a freed node is walked past, so the next walk \
         examines frames below it again, which is where to look.",
        kib(bytes)
    )
}

/// Two panels: bytes per record (log axis), overlap of the sampled ones.
fn draw(
    ctx: &Context,
    programs: &[Program],
    sizes: &[Vec<Size>],
) -> Result<Vec<std::path::PathBuf>, Error> {
    let groups: Vec<String> = programs.iter().map(|p| p.name.clone()).collect();
    // The same series in both panels, so that a record has one colour
    // (the exhaustive CCT scores 100 against itself).
    let series = |value: &dyn Fn(&Record, &Size) -> f64| -> Vec<plot::Series> {
        RECORDS
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let v = sizes.iter().map(|per| value(r, &per[k])).collect();
                (r.label.to_string(), v)
            })
            .collect()
    };
    let bytes = plot::Bars::new(
        "size of each record at the end of the run (nodes x bytes per node)",
        plot::Axis::log("bytes (log)"),
        groups.clone(),
        &series(&|r, s| s.bytes(r) as f64),
    );
    let overlap = plot::Bars::new(
        "accuracy: cct-overlap with the exhaustive CCT",
        plot::Axis::percent("cct-overlap"),
        groups,
        &series(&|_, s| s.overlap),
    );
    plot::Figure {
        title: "Record sizes: the ACCT and the PCCT against the exhaustive CCT".into(),
        panels: vec![plot::Panel::Bars(bytes), plot::Panel::Bars(overlap)],
        columns: 1,
    }
    .write(&ctx.out_file("svg"))
}
