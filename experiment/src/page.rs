//! The page of a run (`NAME.md`): written from the run itself, so that
//! what it says of the command, its run time and the claims is what
//! happened. The experiment supplies the method, the result tables and the
//! discussion ([`crate::markdown::Page`]); the page adds the command, the
//! run time and machine, the figures and the claims table.

use std::time::Instant;

use crate::claims::{self, Claim};
use crate::markdown::Page;
use crate::Context;

/// When and under what load a run started.
pub struct Start {
    at: Instant,
    load: Option<f64>,
}

impl Start {
    /// Now, with the one-minute load average of `/proc/loadavg`.
    pub fn now() -> Start {
        let load = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|s| s.split_whitespace().next().and_then(|w| w.parse().ok()));
        Start {
            at: Instant::now(),
            load,
        }
    }
}

/// The `vm experiment` command line that makes this run.
pub fn command(ctx: &Context) -> String {
    let o = ctx.opts;
    let mut c = format!("vm experiment {}", ctx.exp.name);
    if o.quick {
        c.push_str(" --quick");
    }
    if let Some(n) = o.runs {
        c.push_str(&format!(" --runs {n}"));
    }
    if let Some(p) = &o.programs {
        c.push_str(&format!(" --programs {}", p.join(",")));
    }
    match o.cores {
        Some(crate::cores::Cores::Real) => c.push_str(" --cores=real"),
        Some(crate::cores::Cores::Simulated(n)) => c.push_str(&format!(" --cores={n}")),
        None => {}
    }
    c
}

/// The page.
pub fn write(ctx: &Context, start: &Start, part: &Page, claims: &[Claim]) -> String {
    let e = ctx.exp;
    let secs = start.at.elapsed().as_secs_f64();
    let load = start.load.map_or(String::new(), |l| {
        format!(", load average {l:.1} at the start")
    });
    let mut s = format!(
        "# {}: {}\n\n{}.\n\n",
        e.name,
        e.reproduces,
        capital(e.measures)
    );
    s.push_str(&format!(
        "`{}` ({:.0} s on {}{load}).\n\n",
        command(ctx),
        secs,
        crate::machine::describe()
    ));
    for f in &part.figures {
        let name = crate::plot::file_name(f);
        s.push_str(&format!("![{}]({name})\n\n", e.name));
    }
    s.push_str("## Claims\n\n");
    s.push_str(&claims::table(claims));
    if ctx.opts.quick {
        s.push_str(
            "\nThis is a `--quick` run: small programs and few runs, made to test the code. \
             A claim it cannot judge says so; the others are judged on too little to stand for \
             the paper's result.\n",
        );
    }
    for (title, text) in [
        ("Method", &part.method),
        ("Results", &part.results),
        ("Discussion", &part.discussion),
    ] {
        if !text.trim().is_empty() {
            s.push_str(&format!("\n## {title}\n\n{}\n", text.trim_end()));
        }
    }
    s
}

/// `s` with its first letter a capital.
fn capital(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
