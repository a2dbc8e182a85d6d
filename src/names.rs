//! Enums whose string forms are a public contract shared with JS (error codes, diagnostic codes,
//! outcomes, reasons): one declaration gives the variants, their names, [`ALL`](#) of them and
//! serde by name — and `tests/contracts.rs` fails when a union in `js/types/*.d.ts` drifts from
//! them.

/// Declare `pub enum Name { Variant = "text", … }` with `ALL`, `NAMES`, `as_str`, `parse`,
/// `Display` and serde (de)serialization by the text.
macro_rules! stable_names {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// Every string form, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            /// The stable string form.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// The value with this string form.
            pub fn parse(text: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|value| value.as_str() == text)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                struct ByName;
                impl serde::de::Visitor<'_> for ByName {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        write!(f, "one of {}", $name::NAMES.join(", "))
                    }
                    fn visit_str<E: serde::de::Error>(self, text: &str) -> std::result::Result<$name, E> {
                        $name::parse(text).ok_or_else(|| E::unknown_variant(text, $name::NAMES))
                    }
                }
                d.deserialize_str(ByName)
            }
        }
    };
}

pub(crate) use stable_names;
