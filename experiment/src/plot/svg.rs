//! A small SVG writer: the elements the plots are made of, each with a
//! `class` that says what it is (a bar, a tick label, the legend...), so
//! that a test can find them in the rendered figure and check that no
//! label overlaps another or is hidden (`tests/e2e/figures.rs`).
//!
//! Text is laid out before any browser sees it, so its width is
//! estimated ([`text_width`]) from the advance widths of DejaVu Sans, the
//! first font the figures ask for; the estimate errs wide.

use std::fmt::Write;

/// The fonts every figure asks for, first choice first.
pub const FONTS: &str = "DejaVu Sans, Verdana, Arial, sans-serif";

/// The width in pixels of `s` set in DejaVu Sans at `size` pixels, a
/// little wider than the real advance (per character class: narrow
/// letters and punctuation, wide capitals, everything else).
pub fn text_width(s: &str, size: f64) -> f64 {
    let em: f64 = s
        .chars()
        .map(|c| match c {
            'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | ' ' => 0.34,
            'f' | 't' | 'r' | 'I' | '(' | ')' | '[' | ']' | '-' | '/' => 0.45,
            'm' | 'w' | 'M' | 'W' | '%' | '@' => 0.98,
            c if c.is_ascii_uppercase() => 0.74,
            '_' | '>' | '<' | '=' | '+' | '~' | '#' => 0.84,
            _ => 0.64,
        })
        .sum();
    em * size
}

/// The height of a line of text at `size` pixels (ascent plus descent of
/// DejaVu Sans, as a browser's bounding box has it).
pub fn line_height(size: f64) -> f64 {
    size * 1.17
}

/// How a text is anchored at its point.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Anchor {
    /// The point is the text's left end.
    Start,
    /// The point is the text's middle.
    Middle,
    /// The point is the text's right end.
    End,
}

impl Anchor {
    fn name(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// A text to draw: its point (the middle of its height at the anchor),
/// size, anchor, rotation (degrees, counter-clockwise) and class.
#[derive(Clone, Debug)]
pub struct Text<'a> {
    /// The words.
    pub text: &'a str,
    /// Where the anchor is.
    pub at: (f64, f64),
    /// Font size in pixels.
    pub size: f64,
    /// Which end or middle sits at `at`.
    pub anchor: Anchor,
    /// Counter-clockwise rotation about `at`, in degrees.
    pub turn: f64,
    /// What it is: `title`, `axis-title`, `tick`, `label`, `legend`, `value`.
    pub class: &'a str,
    /// Its colour.
    pub fill: &'a str,
    /// Bold.
    pub bold: bool,
}

impl<'a> Text<'a> {
    /// A black, upright, left-anchored text.
    pub fn new(text: &'a str, at: (f64, f64), size: f64, class: &'a str) -> Text<'a> {
        Text {
            text,
            at,
            size,
            anchor: Anchor::Start,
            turn: 0.0,
            class,
            fill: "#000",
            bold: false,
        }
    }

    /// The same text with another anchor.
    pub fn anchor(self, anchor: Anchor) -> Self {
        Text { anchor, ..self }
    }

    /// The same text turned counter-clockwise by `degrees`.
    pub fn turn(self, degrees: f64) -> Self {
        Text {
            turn: degrees,
            ..self
        }
    }

    /// The same text in another colour.
    pub fn fill(self, fill: &'a str) -> Self {
        Text { fill, ..self }
    }

    /// The same text in bold.
    pub fn bold(self) -> Self {
        Text { bold: true, ..self }
    }
}

/// `text` with `&`, `<`, `>` and `"` escaped.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A number for an attribute: at most two decimals, no trailing zeros.
fn n(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

/// An SVG document being written.
pub struct Svg {
    width: f64,
    height: f64,
    body: String,
}

impl Svg {
    /// An empty white canvas of `width` x `height` pixels.
    pub fn new(width: f64, height: f64) -> Svg {
        let mut svg = Svg {
            width,
            height,
            body: String::new(),
        };
        svg.rect((0.0, 0.0, width, height), "#fff", "background");
        svg
    }

    /// Opens a group of class `class` with extra attributes `attrs`
    /// (`name="value"` pairs, written as given).
    pub fn open(&mut self, class: &str, attrs: &str) {
        let _ = writeln!(self.body, "<g class=\"{class}\"{attrs}>");
    }

    /// Closes the last group opened.
    pub fn close(&mut self) {
        self.body.push_str("</g>\n");
    }

    /// A filled rectangle `(x, y, width, height)`.
    pub fn rect(&mut self, (x, y, w, h): (f64, f64, f64, f64), fill: &str, class: &str) {
        let _ = writeln!(
            self.body,
            "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{fill}\"/>",
            n(x),
            n(y),
            n(w.max(0.0)),
            n(h.max(0.0))
        );
    }

    /// An unfilled rectangle with a stroke.
    pub fn frame(&mut self, (x, y, w, h): (f64, f64, f64, f64), stroke: &str, class: &str) {
        let _ = writeln!(
            self.body,
            "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"1\"/>",
            n(x),
            n(y),
            n(w.max(0.0)),
            n(h.max(0.0))
        );
    }

    /// A straight line.
    pub fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), stroke: &str, class: &str) {
        let _ = writeln!(
            self.body,
            "<line class=\"{class}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{stroke}\" stroke-width=\"1\"/>",
            n(x1),
            n(y1),
            n(x2),
            n(y2)
        );
    }

    /// A line through `points`, `width` pixels wide, dashed if `dash`.
    pub fn polyline(
        &mut self,
        points: &[(f64, f64)],
        stroke: &str,
        width: f64,
        dash: bool,
        class: &str,
    ) {
        let pts: Vec<String> = points
            .iter()
            .map(|p| format!("{},{}", n(p.0), n(p.1)))
            .collect();
        let dash = if dash {
            " stroke-dasharray=\"8 5\""
        } else {
            ""
        };
        let _ = writeln!(
            self.body,
            "<polyline class=\"{class}\" points=\"{}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"{}\"{dash}/>",
            pts.join(" "),
            n(width)
        );
    }

    /// A filled circle; with `ring`, a white one with a coloured edge.
    pub fn circle(&mut self, (x, y): (f64, f64), r: f64, fill: &str, ring: bool, class: &str) {
        let paint = if ring {
            format!("fill=\"#fff\" stroke=\"{fill}\" stroke-width=\"2.5\"")
        } else {
            format!("fill=\"{fill}\"")
        };
        let _ = writeln!(
            self.body,
            "<circle class=\"{class}\" cx=\"{}\" cy=\"{}\" r=\"{}\" {paint}/>",
            n(x),
            n(y),
            n(r)
        );
    }

    /// A text (its point is the middle of its height at the anchor).
    pub fn text(&mut self, t: &Text) {
        let (x, y) = t.at;
        let turn = if t.turn != 0.0 {
            format!(" transform=\"rotate({} {} {})\"", n(-t.turn), n(x), n(y))
        } else {
            String::new()
        };
        let weight = if t.bold { " font-weight=\"bold\"" } else { "" };
        let _ = writeln!(
            self.body,
            "<text class=\"{}\" x=\"{}\" y=\"{}\" dy=\"0.35em\" font-size=\"{}\" text-anchor=\"{}\" fill=\"{}\"{weight}{turn}>{}</text>",
            t.class,
            n(x),
            n(y),
            n(t.size),
            t.anchor.name(),
            t.fill,
            escape(t.text)
        );
    }

    /// The finished document.
    pub fn finish(self) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"{FONTS}\">\n{}</svg>\n",
            self.body,
            w = n(self.width),
            h = n(self.height),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_and_text_is_escaped() {
        assert_eq!(n(1.0), "1");
        assert_eq!(n(1.256), "1.26");
        assert_eq!(n(-0.001), "0");
        assert_eq!(escape("a->b & <c>"), "a-&gt;b &amp; &lt;c&gt;");
    }

    #[test]
    fn wide_letters_are_wider() {
        assert!(text_width("MMM", 10.0) > text_width("iii", 10.0) * 2.0);
        assert_eq!(text_width("", 10.0), 0.0);
    }

    #[test]
    fn a_document_has_a_root_and_every_element_a_class() {
        let mut s = Svg::new(100.0, 50.0);
        s.text(&Text::new("x<y", (1.0, 2.0), 12.0, "label").turn(45.0));
        s.rect((0.0, 0.0, 5.0, 5.0), "#000", "bar");
        let doc = s.finish();
        assert!(doc.starts_with("<svg xmlns="));
        assert!(doc.contains("x&lt;y"));
        assert!(doc.contains("rotate(-45 1 2)"));
        assert!(doc.contains("class=\"bar\""));
    }
}
