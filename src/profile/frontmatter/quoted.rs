//! Quoted YAML scalars decoded: single-quoted (`''`) and double-quoted (every escape), with
//! YAML's line folding. Used for keys, known values, and the structural check.

/// Decode a single-quoted scalar at the start of `text` (`''` is a quote; line breaks fold):
/// the value and the bytes it took, closing quote included. `None` when it is not closed.
pub(super) fn decode_single(text: &str) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut folding = Folding::default();
    let mut chars = text.char_indices().skip(1).peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '\'' if chars.peek().map(|&(_, c)| c) == Some('\'') => {
                chars.next();
                folding.push_char(&mut out, '\'');
            }
            '\'' => return Some((out, at + 1)),
            '\n' => folding.line_break(&mut out, &mut chars),
            '\u{2028}' | '\u{2029}' => folding.kept_line_break(&mut out, c, &mut chars),
            ' ' | '\t' => folding.push_space(&mut out, c),
            _ => folding.push_char(&mut out, c),
        }
    }
    None
}

/// Decode a double-quoted scalar at the start of `text` (every YAML escape; line breaks fold;
/// an escaped line break joins): the value and the bytes it took. `None` when it is not closed
/// or has an invalid escape.
pub(super) fn decode_double(text: &str) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut folding = Folding::default();
    let mut chars = text.char_indices().skip(1).peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Some((out, at + 1)),
            '\\' => {
                let (_, escape) = chars.next()?;
                let decoded = match escape {
                    '0' => '\0',
                    'a' => '\u{7}',
                    'b' => '\u{8}',
                    't' | '\t' => '\t',
                    'n' => '\n',
                    'v' => '\u{b}',
                    'f' => '\u{c}',
                    'r' => '\r',
                    'e' => '\u{1b}',
                    ' ' => ' ',
                    '"' => '"',
                    '/' => '/',
                    '\\' => '\\',
                    'N' => '\u{85}',
                    '_' => '\u{a0}',
                    'L' => '\u{2028}',
                    'P' => '\u{2029}',
                    'x' | 'u' | 'U' => {
                        let digits = match escape {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let mut value = 0u32;
                        for _ in 0..digits {
                            let (_, d) = chars.next()?;
                            value = value * 16 + d.to_digit(16)?;
                        }
                        char::from_u32(value)?
                    }
                    '\n' => {
                        folding.escaped_line_break(&mut out, &mut chars);
                        continue;
                    }
                    _ => return None,
                };
                folding.push_char(&mut out, decoded);
            }
            '\n' => folding.line_break(&mut out, &mut chars),
            '\u{2028}' | '\u{2029}' => folding.kept_line_break(&mut out, c, &mut chars),
            ' ' | '\t' => folding.push_space(&mut out, c),
            _ => folding.push_char(&mut out, c),
        }
    }
    None
}

/// Line folding inside quotes: spaces before a line break and indentation after it go; one
/// break is a space, more breaks are one line break fewer.
#[derive(Default)]
struct Folding {
    /// Where the run of unescaped spaces at the end of the output starts.
    spaces_from: Option<usize>,
}

type Chars<'a> = std::iter::Peekable<std::iter::Skip<std::str::CharIndices<'a>>>;

impl Folding {
    fn push_char(&mut self, out: &mut String, c: char) {
        self.spaces_from = None;
        out.push(c);
    }

    fn push_space(&mut self, out: &mut String, c: char) {
        self.spaces_from.get_or_insert(out.len());
        out.push(c);
    }

    fn line_break(&mut self, out: &mut String, chars: &mut Chars<'_>) {
        if let Some(from) = self.spaces_from.take() {
            out.truncate(from);
        }
        let mut breaks = 1;
        loop {
            while chars.peek().is_some_and(|&(_, c)| c == ' ' || c == '\t') {
                chars.next();
            }
            if chars.peek().is_some_and(|&(_, c)| c == '\n') {
                chars.next();
                breaks += 1;
            } else {
                break;
            }
        }
        if breaks == 1 {
            out.push(' ');
        } else {
            out.extend(std::iter::repeat('\n').take(breaks - 1));
        }
    }

    /// U+2028 and U+2029, line breaks in YAML 1.1 that libyaml keeps as they are (serde-yaml
    /// writes them raw inside quotes): spaces around them go.
    fn kept_line_break(&mut self, out: &mut String, c: char, chars: &mut Chars<'_>) {
        if let Some(from) = self.spaces_from.take() {
            out.truncate(from);
        }
        out.push(c);
        while chars.peek().is_some_and(|&(_, c)| c == ' ' || c == '\t') {
            chars.next();
        }
    }

    fn escaped_line_break(&mut self, out: &mut String, chars: &mut Chars<'_>) {
        self.spaces_from = None;
        loop {
            while chars.peek().is_some_and(|&(_, c)| c == ' ' || c == '\t') {
                chars.next();
            }
            if chars.peek().is_some_and(|&(_, c)| c == '\n') {
                chars.next();
                out.push('\n');
            } else {
                break;
            }
        }
    }
}
