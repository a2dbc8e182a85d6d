//! Exact token counting (SPEC §1.4): `o200k_base` and `cl100k_base`.
