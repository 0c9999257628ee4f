//! The option table's rows against the code that reads them.

use super::*;
use crate::config::{DEFAULT_EVERY, DEFAULT_SAMPLES, DEFAULT_STRIDE};

/// A value each option accepts on the command line.
fn example(o: &OptionSpec) -> &'static str {
    match o.value {
        ValueKind::Switch => "",
        ValueKind::Count { .. } => "7",
        ValueKind::Parsed | ValueKind::Text => match o.flag {
            "--profile" => "timer",
            "--interval" => "2ms",
            "--clock" => "virtual",
            "--record" => "cct",
            "--walk" => "full",
            "--sampled-bit" => "return-address",
            "--acct-update" => "all-new-edges",
            "--sampler" => "partial",
            other => panic!("no example value for {other}"),
        },
    }
}

#[test]
fn each_row_stores_its_own_option() {
    for o in PROFILE_OPTIONS {
        let mut options = ProfileOptions::default();
        assert!(!(o.given)(&options), "{} given by default", o.flag);
        (o.set)(&mut options, example(o)).unwrap();
        assert!((o.given)(&options), "{} not stored", o.flag);
        let others: Vec<&str> = PROFILE_OPTIONS
            .iter()
            .filter(|p| p.flag != o.flag && (p.given)(&options))
            .map(|p| p.flag)
            .collect();
        assert!(others.is_empty(), "{} also sets {others:?}", o.flag);
    }
}

#[test]
fn flags_are_unique_and_well_formed() {
    for (i, o) in PROFILE_OPTIONS.iter().enumerate() {
        assert!(o.flag.starts_with("--") && o.name() == &o.flag[2..]);
        assert_eq!(o.value.is_switch(), o.value_name.is_empty(), "{}", o.flag);
        assert!(
            !o.help.ends_with('.') && !o.help.contains("[default"),
            "{}",
            o.flag
        );
        assert!(PROFILE_OPTIONS[i + 1..].iter().all(|p| p.flag != o.flag));
        let keys = PROFILE_OPTIONS[i + 1..].iter().filter_map(|p| p.config);
        if let Some(e) = o.config {
            assert!(keys.map(|k| k.key).all(|k| k != e.key), "{}", e.key);
        }
    }
}

#[test]
fn bad_values_are_refused_with_a_reason() {
    for o in PROFILE_OPTIONS
        .iter()
        .filter(|o| matches!(o.value, ValueKind::Parsed))
    {
        let e = (o.set)(&mut ProfileOptions::default(), "sideways").unwrap_err();
        assert!(
            e.contains("sideways") || e.contains("unit"),
            "{}: {e}",
            o.flag
        );
    }
    let stride = PROFILE_OPTIONS
        .iter()
        .find(|o| o.flag == "--stride")
        .unwrap();
    assert!((stride.set)(&mut ProfileOptions::default(), "x").is_err());
}

#[test]
fn help_shows_the_defaults_resolve_uses() {
    let default_of = |flag: &str| {
        let o = PROFILE_OPTIONS.iter().find(|o| o.flag == flag).unwrap();
        o.default.unwrap().to_string()
    };
    assert_eq!(default_of("--stride"), DEFAULT_STRIDE.to_string());
    assert_eq!(default_of("--samples"), DEFAULT_SAMPLES.to_string());
    assert_eq!(default_of("--every"), DEFAULT_EVERY.to_string());
    let stride = PROFILE_OPTIONS
        .iter()
        .find(|o| o.flag == "--stride")
        .unwrap();
    assert!(stride.help_with_default().ends_with(" [default: 3]"));
}

#[test]
fn an_option_given_with_another_profile_is_a_usage_error() {
    for o in PROFILE_OPTIONS {
        for &kind in ALL_PROFILES {
            let mut options = ProfileOptions {
                profile: Some(kind),
                ..Default::default()
            };
            (o.set)(&mut options, example(o)).unwrap();
            if o.flag == "--profile" {
                continue;
            }
            let refused = format!("{} does not apply to --profile={kind}", o.flag);
            let said = options.resolve(1).err().unwrap_or_default();
            assert_eq!(
                said.contains(&refused),
                !o.profiles.contains(&kind),
                "{said}"
            );
        }
    }
}

/// Configurations that between them record every key of the section.
fn configurations() -> Vec<ProfileConfig> {
    let with = |args: &[(&str, &str)]| {
        let mut options = ProfileOptions::default();
        for (flag, value) in args {
            let o = PROFILE_OPTIONS.iter().find(|o| o.flag == *flag).unwrap();
            (o.set)(&mut options, value).unwrap();
        }
        options.resolve(9).unwrap()
    };
    vec![
        with(&[("--profile", "none")]),
        with(&[("--profile", "exhaustive"), ("--record", "cct")]),
        with(&[
            ("--profile", "cbs"),
            ("--stride", "2"),
            ("--record", "pcct"),
            ("--purge", "4"),
        ]),
        with(&[
            ("--profile", "counter"),
            ("--record", "acct"),
            ("--tune", ""),
        ]),
        with(&[
            ("--profile", "timer"),
            ("--sampler", "partial"),
            ("--runnable-only", ""),
        ]),
        with(&[
            ("--profile", "timer"),
            ("--no-hold", ""),
            ("--clock", "wall"),
        ]),
    ]
}

#[test]
fn the_config_section_has_each_row_s_entry() {
    let mut seen = std::collections::BTreeSet::new();
    for c in configurations() {
        let section = serde_json::to_value(config_section(&c)).unwrap();
        let section = section.as_object().unwrap();
        let entries: Vec<(&str, Json)> = PROFILE_OPTIONS
            .iter()
            .filter_map(|o| o.config)
            .filter_map(|e| Some((e.key, (e.value)(&c)?)))
            .collect();
        assert_eq!(section.len(), entries.len(), "{section:?}");
        for (key, value) in entries {
            assert_eq!(section.get(key), Some(&value), "{key} in {section:?}");
            seen.insert(key);
        }
    }
    let keys: Vec<&str> = PROFILE_OPTIONS
        .iter()
        .filter_map(|o| o.config)
        .map(|e| e.key)
        .collect();
    assert!(
        keys.iter().all(|k| seen.contains(k)),
        "never recorded: {keys:?} vs {seen:?}"
    );
}

#[test]
fn the_config_section_records_what_the_profile_used() {
    let c = &configurations()[2];
    let section = config_section(c);
    assert_eq!(section.profile, "cbs");
    assert_eq!(
        (section.stride, section.samples, section.every),
        (Some(2), Some(16), None)
    );
    assert_eq!(section.walk.as_deref(), Some("marked"));
    assert_eq!(
        (section.purge, section.seed, section.sampler),
        (Some(4), Some(9), None)
    );
}

#[test]
fn each_count_s_minimum_comes_from_its_row() {
    let mut counts = 0;
    for o in PROFILE_OPTIONS {
        let ValueKind::Count { min, get, .. } = o.value else {
            continue;
        };
        counts += 1;
        let kind = *o.profiles.last().unwrap();
        let mut options = ProfileOptions {
            profile: Some(kind),
            ..Default::default()
        };
        (o.set)(&mut options, "7").unwrap();
        assert_eq!(get(&options), Some(7), "{}", o.flag);
        assert_eq!(below_minimum(&options).count(), 0, "{}", o.flag);
        if min == 0 {
            continue;
        }
        (o.set)(&mut options, &(min - 1).to_string()).unwrap();
        let said: Vec<String> = below_minimum(&options).collect();
        assert_eq!(said, [format!("{} must be at least {min}", o.flag)]);
        // Given with a profile it does not apply to, only the
        // applicability error is reported.
        if let Some(other) = ALL_PROFILES.iter().find(|k| !o.profiles.contains(k)) {
            options.profile = Some(*other);
            assert_eq!(below_minimum(&options).count(), 0, "{}", o.flag);
        }
    }
    assert!(counts >= 7, "the counts of the table: {counts}");
}

#[test]
fn minimums_are_reported_in_table_order_after_applicability() {
    let mut options = ProfileOptions {
        profile: Some(ProfileKind::Cbs),
        ..Default::default()
    };
    for (flag, value) in [("--every", "0"), ("--samples", "0"), ("--stride", "0")] {
        let o = PROFILE_OPTIONS.iter().find(|o| o.flag == flag).unwrap();
        (o.set)(&mut options, value).unwrap();
    }
    assert_eq!(
        options.resolve(1).unwrap_err(),
        "--every does not apply to --profile=cbs (it applies to --profile=counter)\n\
         --stride must be at least 1\n\
         --samples must be at least 1"
    );
}
