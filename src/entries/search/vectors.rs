//! PLACEHOLDER (replaced by helper/rank at merge).
pub use super::bm25::Scored;
pub const DEFAULT_VECTOR_FLOOR: f64 = 0.2;
pub fn quantize(v: &[f32]) -> Result<Vec<i8>, String> {
    let m = v.iter().fold(0f32, |a, x| a.max(x.abs()));
    if v.is_empty() || m == 0.0 || v.iter().any(|x| !x.is_finite()) {
        return Err("bad".into());
    }
    Ok(v.iter().map(|x| (x / m * 127.0).round() as i8).collect())
}
pub fn to_base64(v: &[i8]) -> String {
    v.iter().map(|b| format!("{:02x}", *b as u8)).collect()
}
pub fn from_base64(s: &str) -> Option<Vec<i8>> {
    (0..s.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(s.get(i..i + 2)?, 16)
                .ok()
                .map(|b| b as i8)
        })
        .collect()
}
pub fn rank_vectors(q: &[i8], c: &[&[i8]], floor: f64) -> Vec<Scored> {
    let dot = |a: &[i8], b: &[i8]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| i64::from(*x) * i64::from(*y))
            .sum::<i64>() as f64
    };
    let mut out: Vec<Scored> = c
        .iter()
        .enumerate()
        .filter(|(_, v)| v.len() == q.len())
        .map(|(i, v)| Scored {
            index: i,
            score: dot(q, v) / (dot(q, q).sqrt() * dot(v, v).sqrt()),
        })
        .filter(|s| s.score >= floor)
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index)));
    out
}
