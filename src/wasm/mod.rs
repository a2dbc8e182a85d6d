//! The wasm-bindgen layer.
