//! Headless Chromium, for the tests that look at a page or a figure as a
//! browser renders it (the HTML report, the inline explorer, the adaptive
//! timeline, the figures, the page layout): finding the browser, running
//! it with the flags every such run needs, and reading back what a page's
//! script wrote. Without Chromium these tests print a note and pass
//! (docs/TESTING.md): the machine may not have it.

use std::path::Path;
use std::process::{Command, Output};

/// The browser, if one is installed.
pub fn browser() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// Runs `browser` headless on `url`, with its own profile in `profile`
/// and the flags `extra` (`--dump-dom`, `--screenshot=...`, a window
/// size), and checks that it succeeded.
pub fn run(browser: &str, profile: &Path, extra: &[&str], url: &str) -> Output {
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed on {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The DOM of `url` after its scripts ran (`--dump-dom`, with the flags
/// `extra`), its profile in `profile`; `None`, with a note saying that
/// `what` was not rendered, when no Chromium is installed.
pub fn dump_dom(profile: &Path, extra: &[&str], url: &str, what: &str) -> Option<String> {
    let Some(browser) = browser() else {
        eprintln!("note: chromium is not installed: {what} was not rendered");
        return None;
    };
    let mut flags = extra.to_vec();
    flags.push("--dump-dom");
    let out = run(browser, profile, &flags, url);
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The text a page's script wrote into the element that `open` (its
/// opening tag as the DOM prints it, e.g. `<pre id="result">`) starts,
/// unescaped; panics, showing the DOM, if there is none.
pub fn written_into(dom: &str, open: &str) -> String {
    let text = dom
        .split(open)
        .nth(1)
        .and_then(|r| r.split("</pre>").next())
        .unwrap_or_else(|| panic!("the page's script wrote nothing into {open}: {dom}"));
    text.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}
