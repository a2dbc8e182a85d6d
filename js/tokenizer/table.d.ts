// `import 'memcore/tokenizer/<encoding>'` has no exports: it makes that table available.
export {};
