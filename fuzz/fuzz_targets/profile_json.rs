//! Fuzz target `profile_json`: arbitrary bytes through the profile reader
//! of `vm compare` and `vm report`.
//!
//! The bytes, if UTF-8 (the commands refuse other bytes before parsing),
//! go through `profile::Profile::from_json`. A profile that parses
//! is compared against itself with `profile::metrics::compare` (and both
//! outputs of `vm compare` rendered), summarised as `vm run --report` and
//! `vm report` do, and written back as JSON, which must parse again.
//!
//! The oracle is: no panic, and what the writer writes the reader reads.
#![no_main]

use libfuzzer_sys::fuzz_target;
use profile::metrics;
use profile::Profile;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(profile) = Profile::from_json(text) else {
        return;
    };
    let c = metrics::compare(&profile, &profile);
    let _ = c.undefined();
    let _ = c.to_text();
    let _ = c.to_json();
    let _ = profile::report::no_samples_hint(&profile);
    let _ = profile::report::summary(&profile);
    let written = profile.to_json();
    if let Err(e) = Profile::from_json(&written) {
        panic!("a profile read and written back does not read: {e:?}\n{written}");
    }
});
