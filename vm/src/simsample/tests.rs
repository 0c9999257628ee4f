use super::*;

fn sampling(protocol: Protocol, threads: usize) -> Sampling {
    Sampling {
        protocol,
        interval: 1_000_000,
        threads,
        runnable_only: false,
        walk: WalkCost::Full(256),
        seed: 1,
        jitter: 0,
    }
}

/// `n` threads arrived 10 cycles apart from the tick at 1000, each 5 deep.
fn arrivals(n: u32) -> Vec<Arrival> {
    (0..n)
        .map(|id| Arrival {
            id,
            at: 1000 + 10 * u64::from(n - id),
            depth: 5,
            sampled_depth: 0,
        })
        .collect()
}

fn run(protocol: Protocol, threads: usize, n: u32, blocked: &[Blocked]) -> Outcome {
    let mut a = arrivals(n);
    resolve(
        &sampling(protocol, threads),
        1000,
        &mut a,
        blocked,
        &mut Draws(7),
    )
}

#[test]
fn a_global_safepoint_holds_everyone_until_every_stack_is_walked() {
    let o = run(Protocol::Global, 1, 4, &[]);
    assert_eq!(o.requested, 4);
    // The last arrival (id 0, at 1040) parks; then four walks of 5 frames.
    let walk = 5 * WALK_FRAME_CYCLES;
    let release = 1040 + PARK_CYCLES + 4 * (COORDINATOR_PER_THREAD_CYCLES + walk) + RELEASE_CYCLES;
    assert_eq!(o.end, release);
    assert_eq!(o.walk, 4 * walk);
    assert!(o
        .resume
        .iter()
        .all(|r| r.sampled && r.not_before == release));
    let arrived: u64 = (1..=4).map(|k| 1000 + 10 * k).sum();
    assert_eq!(o.pause, 4 * release - arrived);
}

#[test]
fn a_partial_safepoint_holds_only_the_first_arrivals() {
    let o = run(Protocol::Partial, 2, 4, &[]);
    assert_eq!(o.requested, 2);
    // The earliest are ids 3 and 2 (1010, 1020); 1 and 0 pass.
    let sampled: Vec<u32> = o
        .resume
        .iter()
        .filter(|r| r.sampled)
        .map(|r| r.id)
        .collect();
    assert_eq!(sampled, vec![3, 2]);
    for r in o.resume.iter().filter(|r| !r.sampled) {
        assert_eq!(r.not_before, 1000 + 10 * u64::from(4 - r.id));
    }
    let global = run(Protocol::Global, 2, 4, &[]);
    assert!(o.pause < global.pause, "{} {}", o.pause, global.pause);
}

#[test]
fn self_sampling_pauses_less_than_a_partial_safepoint_with_deep_stacks() {
    let deep = |protocol| {
        let mut a = arrivals(8);
        for x in &mut a {
            x.depth = 200;
        }
        resolve(&sampling(protocol, 8), 1000, &mut a, &[], &mut Draws(7))
    };
    let partial = deep(Protocol::Partial);
    let selfs = deep(Protocol::SelfThenPark);
    let no_hold = deep(Protocol::SelfAndGoOn);
    assert_eq!(partial.walk, selfs.walk);
    assert!(
        selfs.pause < partial.pause,
        "{} {}",
        selfs.pause,
        partial.pause
    );
    assert!(
        no_hold.pause < selfs.pause,
        "{} {}",
        no_hold.pause,
        selfs.pause
    );
}

#[test]
fn blocked_threads_are_held_only_if_they_wake_before_the_release() {
    let blocked = [
        Blocked {
            id: 9,
            wakes: 1001,
            depth: 2,
            sampled_depth: 0,
        },
        Blocked {
            id: 10,
            wakes: u64::MAX,
            depth: 2,
            sampled_depth: 0,
        },
    ];
    let o = run(Protocol::Global, 1, 0, &blocked);
    assert_eq!(o.requested, 2);
    assert_eq!(o.pause, o.end - 1001);
    // Partial safepoints sample waiting threads only by the section 3.1
    // share; with no runnable thread, all of them.
    let o = run(Protocol::SelfThenPark, 2, 0, &blocked);
    assert_eq!(o.requested, 2);
    let mut runnable_only = sampling(Protocol::SelfThenPark, 2);
    runnable_only.runnable_only = true;
    let o = resolve(&runnable_only, 1000, &mut [], &blocked, &mut Draws(7));
    assert_eq!((o.requested, o.pause, o.walk), (0, 0, 0));
}

#[test]
fn walks_cost_their_frames() {
    assert_eq!(
        WalkCost::Full(256).cycles(10, 8),
        (10 * WALK_FRAME_CYCLES, 0)
    );
    assert_eq!(WalkCost::Full(4).cycles(10, 0), (4 * WALK_FRAME_CYCLES, 0));
    assert_eq!(
        WalkCost::Marked(16).cycles(10, 8),
        (3 * WALK_FRAME_CYCLES, 0)
    );
    assert_eq!(WalkCost::Marked(16).cycles(3, 8), (WALK_FRAME_CYCLES, 0));
    assert_eq!(
        WalkCost::Incremental.cycles(10, 0),
        (INCREMENTAL_SAMPLE_CYCLES, 9 * TRAMPOLINE_CYCLES)
    );
}

#[test]
fn the_draws_are_deterministic_and_in_range() {
    let (mut a, mut b) = (Draws(3), Draws(3));
    for _ in 0..100 {
        let x = a.below(2, 9);
        assert_eq!(x, b.below(2, 9));
        assert!((2..9).contains(&x));
        let u = a.unit();
        assert!((0.0..1.0).contains(&u));
        b.unit();
    }
}

#[test]
fn the_first_tick_falls_within_the_period_at_a_phase_the_seed_chooses() {
    let period = 1_000_000;
    let phases: Vec<u64> = (0..200).map(|seed| first_tick(period, seed, 0)).collect();
    assert!(phases.iter().all(|&p| (1..=period).contains(&p)));
    // Spread over the period, not one phase for every seed.
    assert!(phases.iter().any(|&p| p < period / 4));
    assert!(phases.iter().any(|&p| p > 3 * period / 4));
    // One seed, one phase; threads of one run get their own.
    assert_eq!(first_tick(period, 7, 3), first_tick(period, 7, 3));
    assert_ne!(first_tick(period, 7, 3), first_tick(period, 7, 4));
    assert_eq!(first_tick(0, 7, 3), u64::MAX);
    assert_eq!(first_tick(1, 7, 3), 1);
}

#[test]
fn latencies_are_nearest_rank_quantiles_of_the_ticks() {
    assert_eq!(Latencies::of(&[]), None);
    let one = Latencies::of(&[7]).unwrap();
    assert_eq!(
        (one.p2_5, one.q1, one.median, one.q3, one.p97_5, one.max),
        (7, 7, 7, 7, 7, 7)
    );
    // 1..=40 shuffled: the 1st, 10th, 20th, 30th and 39th values by rank.
    let ticks: Vec<u64> = (1..=40).map(|i| (i * 17) % 41).collect();
    let l = Latencies::of(&ticks).unwrap();
    assert_eq!(
        (l.p2_5, l.q1, l.median, l.q3, l.p97_5, l.max),
        (1, 10, 20, 30, 39, 40)
    );
}
