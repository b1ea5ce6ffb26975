//! Records as the readers build them: derived uuids, `provider_data`,
//! `provider_part` blocks, system prompt records.

use super::value::{Map, SmolStr, Value};
use super::Provider;

/// Builds records for [`from_provider`]: derived uuids, system records.
pub struct Builder {
    pub provider: Provider,
    pub out: Vec<Value>,
    hasher: crc32fast::Hasher,
    /// The name a uuid is derived from (reused).
    name: String,
    /// Whether uuids are derived ([`FromProvider::new`]).
    pub(crate) uuids: bool,
    /// What the reader left out, by rule (`client_only_dropped`).
    pub counts: super::Counts,
}

impl Builder {
    pub(crate) fn new(provider: Provider) -> Self {
        Builder {
            provider,
            out: Vec::new(),
            hasher: crc32fast::Hasher::new(),
            name: String::new(),
            uuids: true,
            counts: super::Counts::new(),
        }
    }

    /// A uuid derived from the record's position and everything before it
    /// (so a longer history keeps the uuids of its prefix).
    fn uuid(&mut self, content: &Value) -> SmolStr {
        use std::fmt::Write;
        if !self.uuids {
            return SmolStr::new_inline("msgnorm:convert");
        }
        content.hash_into(&mut self.hasher);
        let h = self.hasher.clone().finalize();
        self.name.clear();
        let _ = write!(
            self.name,
            "msgnorm:{}:{}:{h:08x}",
            self.provider.name(),
            self.out.len()
        );
        let id = uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, self.name.as_bytes());
        SmolStr::new(
            id.hyphenated()
                .encode_lower(&mut uuid::Uuid::encode_buffer()),
        )
    }

    pub fn system(&mut self, role: &str, content: Value) {
        let uuid = self.uuid(&content);
        let mut r = Map::with_capacity(5);
        r.push("type", "system");
        r.push("subtype", "system_prompt");
        r.push("uuid", uuid);
        r.push("role", role);
        r.push("content", content);
        self.out.push(Value::Obj(r));
    }

    /// A system prompt that sat among the messages (Anthropic `role:
    /// "system"`): `in_messages` keeps it there, even before the first turn.
    pub fn system_in_messages(&mut self, role: &str, content: Value) {
        self.system(role, content);
        if let Some(Value::Obj(r)) = self.out.last_mut() {
            r.push("in_messages", true);
        }
    }

    /// A user or assistant record; `data` becomes its `provider_data`.
    pub fn message(&mut self, assistant: bool, content: Value, data: Option<Map>) {
        let uuid = self.uuid(&content);
        let role = if assistant { "assistant" } else { "user" };
        let mut m = Map::with_capacity(2);
        m.push("role", role);
        m.push("content", content);
        let mut r = Map::with_capacity(4);
        r.push("type", role);
        r.push("uuid", uuid);
        r.push("message", m);
        if let Some(d) = data {
            r.push("provider_data", self.data(d));
        }
        self.out.push(Value::Obj(r));
    }

    /// `{"provider": name, ...fields}`. A field of the provider's own named
    /// `provider` is kept as `~provider` (and a key starting with `~` gets one
    /// more), so that it cannot replace the name: [`data_fields`] reverses it.
    pub fn data(&self, fields: Map) -> Value {
        let mut m = Map::with_capacity(fields.len() + 1);
        m.push("provider", self.provider.name());
        for (k, v) in fields.0 {
            if k == "provider" || k.starts_with('~') {
                m.0.push((format!("~{k}").into(), v));
            } else {
                m.0.push((k, v));
            }
        }
        Value::Obj(m)
    }

    /// An image block from a URL (a `data:` URL as base64 media), the part's
    /// other fields kept in its `provider_data`.
    pub fn image(&self, url: &str, rest: Map) -> Value {
        let mut blk = match super::parse_data_url(url) {
            Some((media, data)) => super::media_block("image", media, data),
            None => super::url_block("image", url),
        };
        if let (Value::Obj(m), false) = (&mut blk, rest.is_empty()) {
            m.push("provider_data", self.data(rest));
        }
        blk
    }

    /// A document block from a `data:` URL (`None`: not one), titled with
    /// the file name.
    pub fn document(url: Option<&str>, name: Option<&str>) -> Option<Value> {
        let (media, data) = super::parse_data_url(url?)?;
        let mut blk = super::media_block("document", media, data);
        if let (Value::Obj(m), Some(name)) = (&mut blk, name) {
            m.push("title", name);
        }
        Some(blk)
    }

    /// `{"type": "provider_part", "provider": name, "part": part}`.
    pub fn part(&self, part: Value) -> Value {
        let mut m = Map::with_capacity(3);
        m.push("type", "provider_part");
        m.push("provider", self.provider.name());
        m.push("part", part);
        Value::Obj(m)
    }
}
