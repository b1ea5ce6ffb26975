#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    msgnorm_fuzz::rules::rules(data);
});
