//! PLACEHOLDER (replaced by helper/rank at merge).
use super::analyzer::Analyzer;
pub struct AnalyzedDoc(Vec<String>);
impl AnalyzedDoc {
    pub fn new(a: &Analyzer, key: &str, value: &str) -> Self {
        let mut t = a.terms(key);
        t.extend(a.terms(value));
        AnalyzedDoc(t)
    }
}
#[derive(Clone, Copy)]
pub struct Floor;
impl Floor {
    pub const DEFAULT: Floor = Floor;
}
#[derive(Debug, Clone, Copy)]
pub struct Scored {
    pub index: usize,
    pub score: f64,
}
pub fn rank(q: &[String], docs: &[&AnalyzedDoc], _f: Floor) -> Vec<Scored> {
    let mut out: Vec<Scored> = docs
        .iter()
        .enumerate()
        .filter_map(|(i, d)| {
            let n = q.iter().filter(|t| d.0.contains(t)).count();
            (n > 0).then_some(Scored {
                index: i,
                score: n as f64,
            })
        })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index)));
    out
}
