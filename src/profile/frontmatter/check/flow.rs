//! The structural check of flow collections (`[…]`, `{…}`) and quoted scalars, over the lines of
//! a value joined by `\n`: recursive descent, bounded by [`MAX_DEPTH`].

use super::{ok_if, plain_start, Check, Checked, Refused, MAX_DEPTH};
use crate::profile::frontmatter::quoted::{decode_double, decode_single};
use crate::profile::frontmatter::style::integer;
use std::collections::HashSet;

/// A flow collection or quoted scalar, over a text whose lines are joined by `\n`.
pub(super) struct Flow<'t, 'c, 'd> {
    pub(super) text: &'t str,
    pub(super) at: usize,
    pub(super) check: &'c mut Check<'d>,
}

impl Flow<'_, '_, '_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<u8> {
        self.text.as_bytes().get(self.at + offset).copied()
    }

    /// Skip white space, line breaks and comments.
    fn space(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\n' => self.at += 1,
                b'#' if self.at == 0
                    || matches!(
                        self.text.as_bytes().get(self.at - 1),
                        Some(b' ' | b'\t' | b'\n')
                    ) =>
                {
                    while self.peek().is_some_and(|b| b != b'\n') {
                        self.at += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn inline_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    /// `[…]` or `{…}` at the cursor.
    pub(super) fn collection(&mut self, depth: usize) -> Checked {
        ok_if(depth <= MAX_DEPTH)?;
        let mapping = self.peek() == Some(b'{');
        let close = if mapping { b'}' } else { b']' };
        self.at += 1;
        let mut keys: HashSet<String> = HashSet::new();
        loop {
            self.space();
            match self.peek() {
                None | Some(b',') => return Err(Refused),
                Some(b) if b == close => {
                    self.at += 1;
                    return Ok(());
                }
                _ => {}
            }
            let start = self.at;
            let node = self.node(depth)?;
            self.inline_space();
            if mapping {
                // A key: one line, a scalar, not repeated.
                let span = self.text.get(start..self.at).unwrap_or("");
                let key = node.ok_or(Refused)?;
                ok_if(!span.contains('\n') && span.len() <= 1000 && keys.insert(key))?;
                if self.peek() == Some(b':') {
                    self.at += 1;
                    self.space();
                    if !matches!(self.peek(), Some(b',')) && self.peek() != Some(close) {
                        self.node(depth)?;
                    }
                }
            } else {
                ok_if(self.peek() != Some(b':'))?;
            }
            self.space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b) if b == close => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(Refused),
            }
        }
    }

    /// One flow node; `Some(text)` for a scalar (to compare keys), `None` for a collection or
    /// an alias.
    fn node(&mut self, depth: usize) -> Result<Option<String>, Refused> {
        let mut anchor = None;
        if self.peek() == Some(b'&') {
            let rest = self.text.get(self.at + 1..).ok_or(Refused)?;
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(rest.len());
            let name = rest.get(..end).ok_or(Refused)?;
            ok_if(!name.is_empty())?;
            self.at += 1 + end;
            ok_if(matches!(self.peek(), Some(b' ' | b'\t' | b'\n')))?;
            self.space();
            anchor = Some(name.to_string());
        }
        let node = match self.peek() {
            None | Some(b'!' | b',' | b']' | b'}') => return Err(Refused),
            Some(b'*') => {
                ok_if(anchor.is_none())?;
                let rest = self.text.get(self.at + 1..).ok_or(Refused)?;
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                    .unwrap_or(rest.len());
                let name = rest.get(..end).ok_or(Refused)?;
                ok_if(!name.is_empty() && self.check.is_defined(name))?;
                self.at += 1 + end;
                ok_if(matches!(
                    self.peek(),
                    None | Some(b' ' | b'\t' | b'\n' | b',' | b']' | b'}')
                ))?;
                None
            }
            Some(b'[' | b'{') => {
                self.collection(depth + 1)?;
                None
            }
            Some(b'\'' | b'"') => Some(self.quoted()?),
            Some(_) => Some(self.flow_plain()?),
        };
        if let Some(name) = anchor {
            self.check.new.insert(name);
        }
        Ok(node)
    }

    /// A quoted scalar at the cursor: its decoded text.
    pub(super) fn quoted(&mut self) -> Result<String, Refused> {
        let rest = self.text.get(self.at..).ok_or(Refused)?;
        let decoded = if rest.starts_with('\'') {
            decode_single(rest)
        } else {
            decode_double(rest)
        };
        let (text, used) = decoded.ok_or(Refused)?;
        self.at += used;
        Ok(text)
    }

    /// A plain scalar inside a flow collection (one line).
    fn flow_plain(&mut self) -> Result<String, Refused> {
        let rest = self.text.get(self.at..).ok_or(Refused)?;
        ok_if(plain_start(rest, true))?;
        let start = self.at;
        while let Some(b) = self.peek() {
            let ends = match b {
                b',' | b'[' | b']' | b'{' | b'}' | b'\n' => true,
                b':' => match self.peek_at(1) {
                    None | Some(b' ' | b'\t' | b'\n') => true,
                    // libyaml: "found unexpected ':'".
                    Some(b',' | b'?' | b'[' | b']' | b'{' | b'}') => return Err(Refused),
                    Some(_) => false,
                },
                b'#' => matches!(self.text.as_bytes().get(self.at - 1), Some(b' ' | b'\t')),
                _ => false,
            };
            if ends {
                break;
            }
            self.at += 1;
        }
        let text = self
            .text
            .get(start..self.at)
            .ok_or(Refused)?
            .trim_end_matches([' ', '\t']);
        ok_if(!text.is_empty() && integer(text) != Some(false))?;
        Ok(text.to_string())
    }
}
