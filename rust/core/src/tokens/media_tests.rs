use super::*;

fn b64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let v = c
            .iter()
            .enumerate()
            .fold(0u32, |v, (k, &b)| v | u32::from(b) << (16 - 8 * k));
        for k in 0..4 {
            if k <= c.len() {
                out.push(A[(v >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn png(w: u32, h: u32) -> Vec<u8> {
    let mut v = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13];
    v.extend_from_slice(b"IHDR");
    v.extend_from_slice(&w.to_be_bytes());
    v.extend_from_slice(&h.to_be_bytes());
    v.extend_from_slice(&[8, 6, 0, 0, 0, 0x12, 0x34, 0x56, 0x78]);
    v
}

fn gif(w: u16, h: u16) -> Vec<u8> {
    let mut v = b"GIF89a".to_vec();
    v.extend_from_slice(&w.to_le_bytes());
    v.extend_from_slice(&h.to_le_bytes());
    v.extend_from_slice(&[0, 0, 0, 0x3B]);
    v
}

/// A JPEG with an APP0 segment, an APP1 of `pad` bytes, fill bytes, a DHT
/// (not a frame header) and then SOF2.
fn jpeg(w: u16, h: u16, pad: usize) -> Vec<u8> {
    let mut v = vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 16];
    v.extend_from_slice(b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
    v.extend_from_slice(&[0xFF, 0xE1]);
    v.extend_from_slice(&((pad + 2) as u16).to_be_bytes());
    v.extend(std::iter::repeat_n(0xAB, pad));
    v.extend_from_slice(&[0xFF, 0xFF, 0xC4, 0, 4, 0, 0]);
    v.extend_from_slice(&[0xFF, 0xC2, 0, 11, 8]);
    v.extend_from_slice(&h.to_be_bytes());
    v.extend_from_slice(&w.to_be_bytes());
    v.extend_from_slice(&[1, 1, 0x11, 0, 0xFF, 0xD9]);
    v
}

fn riff(chunk: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let mut v = b"RIFF".to_vec();
    v.extend_from_slice(&((body.len() + 12) as u32).to_le_bytes());
    v.extend_from_slice(b"WEBP");
    v.extend_from_slice(chunk);
    v.extend_from_slice(&(body.len() as u32).to_le_bytes());
    v.extend_from_slice(body);
    v
}

fn webp_lossy(w: u16, h: u16) -> Vec<u8> {
    let mut b = vec![0x30, 0x01, 0x00, 0x9D, 0x01, 0x2A];
    b.extend_from_slice(&w.to_le_bytes());
    b.extend_from_slice(&h.to_le_bytes());
    b.extend_from_slice(&[0; 6]);
    riff(b"VP8 ", &b)
}

fn webp_lossless(w: u32, h: u32) -> Vec<u8> {
    let bits = (w - 1) | (h - 1) << 14;
    let mut b = vec![0x2F];
    b.extend_from_slice(&bits.to_le_bytes());
    b.extend_from_slice(&[0; 5]);
    riff(b"VP8L", &b)
}

fn webp_extended(w: u32, h: u32) -> Vec<u8> {
    let mut b = vec![0x10, 0, 0, 0];
    b.extend_from_slice(&(w - 1).to_le_bytes()[..3]);
    b.extend_from_slice(&(h - 1).to_le_bytes()[..3]);
    riff(b"VP8X", &b)
}

fn all_formats() -> Vec<(&'static str, Vec<u8>, (u32, u32))> {
    vec![
        ("png", png(640, 480), (640, 480)),
        ("gif", gif(300, 20), (300, 20)),
        ("jpeg", jpeg(4000, 3000, 40), (4000, 3000)),
        ("jpeg, large metadata", jpeg(1200, 800, 60_000), (1200, 800)),
        ("webp lossy", webp_lossy(1024, 768), (1024, 768)),
        ("webp lossless", webp_lossless(16383, 2), (16383, 2)),
        ("webp extended", webp_extended(5000, 7000), (5000, 7000)),
    ]
}

#[test]
fn each_format_gives_its_size() {
    for (name, bytes, want) in all_formats() {
        assert_eq!(image_size(&b64(&bytes)), Some(want), "{name}");
    }
}

#[test]
fn only_the_header_is_decoded() {
    // what follows the header may be anything, even not base64
    let mut s = b64(&png(32, 64));
    s.push_str(&"!".repeat(10_000));
    assert_eq!(image_size(&s), Some((32, 64)));
    // a JPEG's metadata is stepped over: its bytes are not read
    let mut j = jpeg(10, 20, 3000);
    for b in &mut j[30..3000] {
        *b = 0xFF;
    }
    assert_eq!(image_size(&b64(&j)), Some((10, 20)));
}

#[test]
fn truncations_at_every_length_never_panic_nor_invent_a_size() {
    // (the JPEG with 60 kB of metadata has the same header as the small one)
    for (name, bytes, want) in all_formats().into_iter().filter(|f| f.1.len() < 1000) {
        let text = b64(&bytes);
        let whole = image_size(&text);
        for n in 0..text.len() {
            let got = image_size(&text[..n]);
            assert!(got.is_none() || got == whole, "{name} cut at {n}: {got:?}");
        }
        for n in 0..bytes.len() {
            let got = image_size(&b64(&bytes[..n]));
            assert!(
                got.is_none() || got == Some(want),
                "{name} cut at byte {n}: {got:?}"
            );
        }
    }
}

#[test]
fn hostile_headers_never_panic() {
    let mut cases: Vec<Vec<u8>> = vec![
        vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 0],            // segment length 0
        vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 1, 0],         // segment length 1
        vec![0xFF, 0xD8, 0xFF, 0xD9],                  // end before a frame
        [vec![0xFF, 0xD8], vec![0xFF; 5000]].concat(), // fill bytes only
        [vec![0xFF, 0xD8], [0xFF, 0xD0].repeat(400)].concat(), // markers without length
        b"RIFF\0\0\0\0WEBPVP8 \0\0\0\0\0\0\0\0\0\0".to_vec(), // no start code
        b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\0".to_vec(),
        b"RIFF\0\0\0\0WEBPXXXX".to_vec(),
        png(0, 10),
        gif(7, 0),
    ];
    // bytes of a simple generator
    let mut x: u32 = 12345;
    for _ in 0..300 {
        let head: [&[u8]; 4] = [
            &[0x89, b'P', b'N', b'G'],
            b"GIF8",
            &[0xFF, 0xD8, 0xFF],
            b"RIFF",
        ];
        let mut v = head[(x % 4) as usize].to_vec();
        for _ in 0..(x % 97) {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            v.push((x >> 16) as u8);
        }
        cases.push(v);
    }
    for c in &cases {
        let got = image_size(&b64(c));
        if let Some((w, h)) = got {
            assert!(w > 0 && h > 0);
        }
    }
    assert_eq!(image_size(&b64(&png(0, 10))), None);
    assert_eq!(image_size(""), None);
    assert_eq!(image_size("not base64 at all"), None);
    assert_eq!(image_size("iVBORw0KGgo="), None);
    // a header behind whitespace (MIME line breaks) is not read
    assert_eq!(image_size(&format!("\n{}", b64(&png(5, 5)))), None);
}

#[test]
fn claude_scales_to_1568_and_about_1600_tokens() {
    assert_eq!(claude_tokens(200, 200), 54); // 40000 / 750 = 53.3
    assert_eq!(claude_tokens(1000, 1000), 1334);
    assert_eq!(claude_tokens(1092, 1092), 1590);
    // wide: 3136x392 -> 1568x196 = 307328 / 750
    assert_eq!(claude_tokens(3136, 392), 410);
    // huge: scaled to the size limit
    assert_eq!(claude_tokens(4000, 3000), 1600);
    assert_eq!(claude_tokens(u32::MAX, u32::MAX), 1600);
    assert_eq!(claude_tokens(1, 1), 1);
}

#[test]
fn openai_tiles_at_high_detail_and_85_at_low() {
    assert_eq!(o200k_tokens(1024, 1024, false), 765); // 768x768: 4 tiles
    assert_eq!(o200k_tokens(1024, 1024, true), 85);
    assert_eq!(o200k_tokens(100, 100, false), 255); // one tile
    assert_eq!(o200k_tokens(2048, 4096, false), 1105); // 1024x2048 -> 768x1536: 2x3
    assert_eq!(o200k_tokens(4000, 300, false), 85 + 170 * 4); // 2048x153: 4x1
    assert_eq!(o200k_tokens(u32::MAX, 1, false), 85 + 170 * 4);
}

#[test]
fn gemini_is_258_a_small_image_or_a_768_tile() {
    assert_eq!(gemini_tokens(384, 384), 258);
    assert_eq!(gemini_tokens(385, 100), 258);
    assert_eq!(gemini_tokens(1024, 1024), 258 * 4);
    assert_eq!(gemini_tokens(3000, 700), 258 * 4);
    assert!(gemini_tokens(u32::MAX, u32::MAX) > 0);
}

#[test]
fn the_reader_costs_an_image_by_its_header_in_each_family() {
    use crate::json::{read_records, ReadOpts};
    use crate::tokens::{per_record, CountParams, Tokenizer};
    let rec = |block: String| {
        format!(r#"{{"type":"user","uuid":"u","message":{{"role":"user","content":[{block}]}}}}"#)
    };
    let img = |data: &str, extra: &str| {
        format!(
            r#"{{"type":"image"{extra},"source":{{"type":"base64","media_type":"image/png","data":"{data}"}}}}"#
        )
    };
    let big = b64(&png(4000, 3000));
    let small = b64(&gif(100, 50));
    let src = format!(
        "[{},{},{},{},{},{}]",
        rec(img(&big, "")),
        rec(img(&small, "")),
        rec(img(
            &big,
            r#","provider_data":{"detail":"low","provider":"openai_chat"}"#
        )),
        rec(r#"{"type":"image","source":{"type":"url","url":"https://x/y.png"}}"#.into()),
        rec(img("@@@@", "")),
        // `data` before `type`, in a tool result
        rec(format!(
            r#"{{"type":"tool_result","tool_use_id":"t","content":[{{"source":{{"data":"{small}","type":"base64"}},"type":"image"}}]}}"#
        )),
    );
    let recs = read_records(&src, ReadOpts::COUNT).unwrap();
    let count = |t: Tokenizer| {
        let p = CountParams {
            tokenizer: t,
            ..CountParams::default()
        };
        per_record(&recs, &p).unwrap()
    };
    let fam = |f| count(Tokenizer::Family(f));
    let claude = |i: usize| fam(Family::Claude)[i];
    let text = claude(3) - 1600; // what the block around the image costs
    assert_eq!(claude(0), text + 1600);
    assert_eq!(claude(1), text + 7); // 100 * 50 / 750 = 6.7
    assert_eq!(claude(4), text + 1600); // not an image: the flat rate
    let o = fam(Family::O200k);
    let o_text = o[3] - 765;
    // 4000x3000 -> 2048x1536 -> 1024x768: 2x2 tiles
    assert_eq!(o[0], o_text + 765);
    assert_eq!(o[1], o_text + 255);
    assert_eq!(o[2], o_text + 85);
    let g = fam(Family::Gemini);
    let g_text = g[3] - 258;
    assert_eq!(g[0], g_text + 258 * 6 * 4);
    assert_eq!(g[1], g_text + 258);
    // the §6 formula counts every image at tokens_per_image
    let chars = count(Tokenizer::Chars);
    assert!(chars[..5].iter().all(|&n| n == chars[3]));
    assert_eq!(recs[5].cost.media.sized, 1);
    assert_eq!(recs[5].cost.images, 1);
    assert_eq!(recs[3].cost.media, crate::model::ImageCost::default());
}

#[test]
fn a_text_document_is_not_an_image() {
    use crate::json::{read_records, ReadOpts};
    let data = b64(&png(64, 64));
    let src = format!(
        r#"[{{"type":"user","uuid":"u","message":{{"role":"user","content":[{{"type":"document","source":{{"data":"{data}","type":"text"}}}}]}}}}]"#
    );
    let recs = read_records(&src, ReadOpts::COUNT).unwrap();
    assert_eq!(recs[0].cost.media.sized, 0);
    assert_eq!(recs[0].cost.chars, data.chars().count() as u64);
}
