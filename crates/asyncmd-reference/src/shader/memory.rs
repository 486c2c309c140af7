//! The memory a kernel reaches: its bindings' bytes (bounds-checked: out-of-bounds reads give 0
//! and writes are dropped), its push constants, and its own variables' components.
//!
//! Bindings are bytes that several batches, on several threads, may read and write at once
//! (`Program::dispatch`): a buffer is accessed as `AtomicU32` words (every kernel access to a
//! buffer is a whole, aligned 4-byte scalar), a texture, or a buffer whose bytes are not
//! word-aligned in host memory, as `AtomicU8`s; always with relaxed ordering, which on the usual
//! processors compiles to plain loads and stores. One resource is accessed at one size for the
//! whole dispatch, so accesses never partially overlap. Two groups writing one word is a race in
//! the app's kernel (undefined results in D3D12), never undefined behaviour here.

use super::layout::{Kind, Leaf};
use super::texture::Texture;
use super::value::{all_lanes, any_lane, words as words_buf, zeroed, Offsets, Ptr, Region, Val, OUT};
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering::Relaxed};

/// The bytes of `b` as atomics, for batches on several threads.
#[allow(unsafe_code)]
fn shared_bytes(b: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: `AtomicU8` has the size, alignment and bit validity of `u8`, and the unique
    // borrow of `b` is given up for the returned one, so no plain access to these bytes
    // happens while it lives (what the unstable `AtomicU8::from_mut_slice` does).
    unsafe { &*(b as *mut [u8] as *const [AtomicU8]) }
}

/// `b` shared for a dispatch: as words when `words` is asked and `b` is word-aligned in memory
/// (its whole words; a last partial word is out of reach, as robust buffer access puts it),
/// else as bytes.
#[allow(unsafe_code)]
pub(crate) fn share(b: &mut [u8], words: bool) -> Shared<'_> {
    let len = b.len();
    if words && (b.as_ptr() as usize).is_multiple_of(std::mem::align_of::<AtomicU32>()) {
        let whole = &mut b[..len / 4 * 4];
        // SAFETY: `AtomicU32` has the size and bit validity of `u32`, and the pointer is aligned
        // for it (checked above); the words lie inside `b`, whose unique borrow is given up for
        // the returned one, so no plain access to them happens while it lives.
        let w = unsafe { std::slice::from_raw_parts(whole.as_mut_ptr() as *const AtomicU32, whole.len() / 4) };
        return Shared::Words(w, len);
    }
    Shared::Bytes(shared_bytes(b))
}

/// A resource's bytes as the dispatch shares them: whole words, or single bytes.
#[derive(Clone, Copy)]
pub(crate) enum Shared<'a> {
    /// Words, and the bytes they and a last partial word span.
    Words(&'a [AtomicU32], usize),
    /// Bytes.
    Bytes(&'a [AtomicU8]),
}

impl<'a> Shared<'a> {
    /// Bytes `start..start + len` (a word-shared range must start on a word).
    fn range(self, start: usize, len: usize) -> Option<Shared<'a>> {
        let end = start.checked_add(len)?;
        match self {
            Shared::Bytes(b) => b.get(start..end).map(Shared::Bytes),
            Shared::Words(w, bytes) if start.is_multiple_of(4) && end <= bytes => {
                Some(Shared::Words(w.get(start / 4..(end / 4).min(w.len()))?, len))
            }
            Shared::Words(..) => None,
        }
    }

    /// Bytes spanned.
    pub(crate) fn len(self) -> usize {
        match self {
            Shared::Words(_, bytes) => bytes,
            Shared::Bytes(b) => b.len(),
        }
    }

    /// The bytes, where they are shared a byte at a time (textures).
    pub(crate) fn bytes(self) -> Option<&'a [AtomicU8]> {
        match self {
            Shared::Bytes(b) => Some(b),
            Shared::Words(..) => None,
        }
    }

    /// The component at byte `at`, or `None` past the end.
    pub(crate) fn read(self, at: u32, leaf: Leaf) -> Option<u32> {
        match self {
            Shared::Bytes(b) => checked_read(b, at, leaf),
            Shared::Words(w, _) => {
                let word = w.get(at as usize / 4)?.load(Relaxed);
                if leaf.kind == Kind::Bool {
                    return Some((word >> (8 * (at % 4)) & 0xff != 0) as u32);
                }
                at.is_multiple_of(4).then_some(word)
            }
        }
    }

    /// Writes the component at byte `at`; nothing past the end.
    pub(crate) fn write(self, at: u32, leaf: Leaf, v: u32) {
        match self {
            Shared::Bytes(b) => write_bytes(b, at, leaf, v),
            Shared::Words(w, _) => {
                let Some(word) = w.get(at as usize / 4) else { return };
                if leaf.kind == Kind::Bool {
                    let shift = 8 * (at % 4);
                    let byte = u32::from(v != 0) << shift;
                    let _ = word.fetch_update(Relaxed, Relaxed, |x| Some(x & !(0xff << shift) | byte));
                } else if at.is_multiple_of(4) {
                    word.store(v, Relaxed);
                }
            }
        }
    }

    /// The word at byte `at`, known to be inside and aligned for words.
    #[inline]
    fn word(self, at: usize) -> u32 {
        match self {
            Shared::Words(w, _) => w[at / 4].load(Relaxed),
            Shared::Bytes(b) => u32::from_le_bytes([0, 1, 2, 3].map(|k| b[at + k].load(Relaxed))),
        }
    }

    /// The words at bytes `start`, `start + stride`, … into `out`, all known to be inside and
    /// aligned for words: one pass, with no check a word where the bytes are shared as words.
    fn gather(self, start: usize, stride: usize, out: &mut [u32]) {
        match self {
            Shared::Words(w, _) => {
                let step = (stride / 4).max(1);
                let from = w.get(start / 4..).unwrap_or_default();
                out.iter_mut().zip(from.iter().step_by(step)).for_each(|(o, x)| *o = x.load(Relaxed));
            }
            Shared::Bytes(_) => out.iter_mut().enumerate().for_each(|(l, o)| *o = self.word(start + l * stride)),
        }
    }

    /// Stores `src`'s words at bytes `start`, `start + stride`, … (as `gather` reads them).
    fn scatter(self, start: usize, stride: usize, src: impl Iterator<Item = u32>) {
        match self {
            Shared::Words(w, _) => {
                let step = (stride / 4).max(1);
                let to = w.get(start / 4..).unwrap_or_default();
                to.iter().step_by(step).zip(src).for_each(|(d, x)| d.store(x, Relaxed));
            }
            Shared::Bytes(_) => src.enumerate().for_each(|(l, x)| self.set_word(start + l * stride, x)),
        }
    }

    /// Stores the word at byte `at`, known to be inside and aligned for words.
    #[inline]
    fn set_word(self, at: usize, v: u32) {
        match self {
            Shared::Words(w, _) => w[at / 4].store(v, Relaxed),
            Shared::Bytes(b) => b[at..at + 4].iter().zip(v.to_le_bytes()).for_each(|(b, x)| b.store(x, Relaxed)),
        }
    }
}

/// The memory a dispatch reads and writes.
pub(crate) struct Memory<'a> {
    /// Each resource the dispatch binds, once, however many views it has.
    pub(crate) buffers: Vec<Shared<'a>>,
    /// Each shader binding's view (`None`: nothing bound; reads 0, writes dropped).
    pub(crate) bindings: Vec<Option<View>>,
    /// Each texture binding's view (`None` for the rest, and for a texture not bound).
    pub(crate) textures: Vec<Option<Texture>>,
    /// Each sampler binding's sampler (`None` for the rest).
    pub(crate) samplers: Vec<Option<asyncmd_types::SamplerDesc>>,
    pub(crate) immediates: &'a [u8],
}

/// A binding's bytes: a range of one of the dispatch's buffers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct View {
    pub(crate) buffer: usize,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

impl Memory<'_> {
    /// The texture view at `binding`.
    pub(crate) fn texture(&self, binding: usize) -> Option<&Texture> {
        self.textures.get(binding)?.as_ref()
    }

    /// The sampler at `binding`.
    pub(crate) fn sampler(&self, binding: usize) -> Option<asyncmd_types::SamplerDesc> {
        *self.samplers.get(binding)?
    }

    /// The bytes of dispatch buffer `i` (a texture's), whole.
    pub(crate) fn buffer(&self, i: usize) -> Option<&[AtomicU8]> {
        self.buffers.get(i)?.bytes()
    }

    pub(crate) fn view(&self, binding: usize) -> Option<Shared<'_>> {
        let v = (*self.bindings.get(binding)?)?;
        self.buffers.get(v.buffer)?.range(v.start, v.len)
    }

    /// Bytes bound at `binding` (0 where nothing is).
    pub(crate) fn len(&self, binding: usize) -> usize {
        self.bindings.get(binding).copied().flatten().map_or(0, |v| v.len)
    }

    /// Loads `leaves` through a pointer into a binding or the push constants.
    pub(crate) fn load(&self, p: &Ptr, leaves: &[Leaf], n: usize) -> Val {
        match p.region {
            Region::Binding(b) => match self.view(b) {
                Some(bytes) => load_bytes(bytes, p, leaves, n),
                None => Val::zeros(leaves.len()),
            },
            Region::Immediate => {
                // Root constants: read-only, plain bytes.
                let bytes = self.immediates;
                let read = |o: u32, leaf: &Leaf| plain_read(bytes, o.saturating_add(leaf.offset), *leaf);
                match &p.offsets {
                    Offsets::Uniform(o) => Val::uniform(leaves.iter().map(|leaf| read(*o, leaf)).collect()),
                    offsets => {
                        let offsets = offsets.lanes(n).unwrap_or_default();
                        let mut data = zeroed(leaves.len() * n);
                        for (c, leaf) in leaves.iter().enumerate() {
                            for (l, &o) in offsets.iter().enumerate() {
                                if o != OUT {
                                    data[c * n + l] = read(o, leaf);
                                }
                            }
                        }
                        Val::varying(leaves.len(), data)
                    }
                }
            }
            _ => Val::zeros(leaves.len()),
        }
    }

    /// Stores `v` through a pointer into a binding, for the `active` lanes.
    pub(crate) fn store(&self, p: &Ptr, leaves: &[Leaf], v: &Val, active: &[bool]) {
        let Region::Binding(b) = p.region else { return };
        let Some(bytes) = self.view(b) else { return };
        let n = active.len();
        if !matches!(p.offsets, Offsets::Uniform(_)) {
            if let (Some((first, stride)), true) = (strided(&p.offsets, n, leaves, bytes), all_lanes(active)) {
                // Lane l's element `stride` bytes after lane l − 1's, every lane active: each
                // leaf's words go out in one pass, bounds checked once.
                for (c, leaf) in leaves.iter().enumerate() {
                    let start = first as usize + leaf.offset as usize;
                    match v.uniform {
                        true => {
                            bytes.scatter(start, stride, std::iter::repeat_n(v.data.get(c).copied().unwrap_or(0), n))
                        }
                        false => bytes.scatter(
                            start,
                            stride,
                            v.data.get(c * n..(c + 1) * n).unwrap_or_default().iter().copied(),
                        ),
                    }
                }
                return;
            }
        }
        for (c, leaf) in leaves.iter().enumerate() {
            for (l, &on) in active.iter().enumerate() {
                let at = p.offsets.get(l);
                if on && at != OUT {
                    bytes.write(at.saturating_add(leaf.offset), *leaf, v.get(c, l, n));
                }
            }
        }
    }
}

/// Loads `leaves` from a binding's bytes; out of bounds reads 0 (robust buffer access).
fn load_bytes(bytes: Shared, p: &Ptr, leaves: &[Leaf], n: usize) -> Val {
    let read = |at: u32, leaf: Leaf| bytes.read(at, leaf).unwrap_or(0);
    match &p.offsets {
        Offsets::Uniform(o) => {
            Val::uniform(leaves.iter().map(|leaf| read(o.saturating_add(leaf.offset), *leaf)).collect())
        }
        offsets => {
            let mut data = zeroed(leaves.len() * n);
            let strided = strided(offsets, n, leaves, bytes);
            let listed = match strided {
                Some(_) => None,
                None => offsets.lanes(n),
            };
            let offsets = listed.as_deref().unwrap_or_default();
            for (c, leaf) in leaves.iter().enumerate() {
                let out = &mut data[c * n..(c + 1) * n];
                if let Some((first, stride)) = strided {
                    // Lane l reads the element `stride` bytes after lane l − 1's: one pass over
                    // the words, bounds checked once.
                    bytes.gather(first as usize + leaf.offset as usize, stride, out);
                    continue;
                }
                for (o, &at) in out.iter_mut().zip(offsets) {
                    if at != OUT {
                        *o = read(at.saturating_add(leaf.offset), *leaf);
                    }
                }
            }
            Val::varying(leaves.len(), data)
        }
    }
}

/// Loads `comps` components of a variable's `words` at each lane's offset.
pub(crate) fn load_words(words: &[u32], per_lane: bool, p: &Ptr, comps: usize, n: usize) -> Val {
    match (&p.offsets, per_lane) {
        (Offsets::Uniform(o), false) => {
            Val::uniform((0..comps).map(|c| words.get(*o as usize + c).copied().unwrap_or(0)).collect())
        }
        (Offsets::Uniform(o), true) if *o != OUT => {
            // Every lane at the same component of its own copy: whole slices.
            let mut data = words_buf(comps * n);
            for c in 0..comps {
                let at = (*o as usize + c) * n;
                match words.get(at..at + n) {
                    Some(src) => data.extend_from_slice(src),
                    None => data.resize((c + 1) * n, 0),
                }
            }
            Val::varying(comps, data)
        }
        (offsets @ (Offsets::Varying(_) | Offsets::Strided { .. }), false) => {
            // A gather from words every lane shares (workgroup memory, a uniform local). An
            // offset of `OUT` lands past the end (usize is wider than u32): it reads 0.
            let offsets = offsets.lanes(n).unwrap_or_default();
            let mut data = words_buf(comps * n);
            for c in 0..comps {
                data.extend(offsets.iter().map(|&o| words.get(o as usize + c).copied().unwrap_or(0)));
            }
            Val::varying(comps, data)
        }
        _ => {
            let mut data = zeroed(comps * n);
            for c in 0..comps {
                for l in 0..n {
                    let o = p.offsets.get(l);
                    if o == OUT {
                        continue;
                    }
                    let k = o as usize + c;
                    let at = if per_lane { k * n + l } else { k };
                    data[c * n + l] = words.get(at).copied().unwrap_or(0);
                }
            }
            Val::varying(comps, data)
        }
    }
}

/// Stores `v` into a variable's `words` for the `active` lanes.
pub(crate) fn store_words(words: &mut [u32], per_lane: bool, p: &Ptr, v: &Val, active: &[bool]) {
    let n = active.len();
    if let (Offsets::Uniform(o), false, true) = (&p.offsets, per_lane, v.uniform) {
        // One place for every lane, one value: written once if any lane writes.
        if *o != OUT && any_lane(active) {
            for (c, &x) in v.data.iter().enumerate() {
                if let Some(w) = words.get_mut(*o as usize + c) {
                    *w = x;
                }
            }
        }
        return;
    }
    if let (Offsets::Uniform(o), true) = (&p.offsets, per_lane) {
        if *o != OUT && all_lanes(active) {
            for c in 0..v.comps {
                let at = (*o as usize + c) * n;
                if let Some(dst) = words.get_mut(at..at + n) {
                    if v.uniform {
                        dst.fill(v.data[c]);
                    } else {
                        dst.copy_from_slice(&v.data[c * n..(c + 1) * n]);
                    }
                }
            }
            return;
        }
        if *o != OUT {
            // Every lane at the same component of its own copy, some lanes masked off: a blend
            // of whole slices, which the compiler vectorises.
            for c in 0..v.comps {
                let at = (*o as usize + c) * n;
                let Some(dst) = words.get_mut(at..at + n) else { continue };
                // Blended through a mask of all ones or zeros: no branch, so it vectorises.
                let blend = |d: &mut u32, x: u32, a: bool| {
                    let m = u32::from(a).wrapping_neg();
                    *d = (x & m) | (*d & !m);
                };
                if v.uniform {
                    let x = v.data[c];
                    dst.iter_mut().zip(active).for_each(|(d, &a)| blend(d, x, a));
                } else {
                    let src = &v.data[c * n..(c + 1) * n];
                    dst.iter_mut().zip(src).zip(active).for_each(|((d, &x), &a)| blend(d, x, a));
                }
            }
            return;
        }
    }
    for c in 0..v.comps {
        for (l, &on) in active.iter().enumerate() {
            let o = p.offsets.get(l);
            if !on || o == OUT {
                continue;
            }
            let k = o as usize + c;
            let at = if per_lane { k * n + l } else { k };
            if let Some(w) = words.get_mut(at) {
                *w = v.get(c, l, n);
            }
        }
    }
}

/// Where lane 0's element starts, and the bytes from one lane's to the next, when the lanes'
/// elements follow each other at one stride (a kernel indexing an array by its thread id), no
/// leaf is a bool, every leaf's word of every lane lies inside the bytes and, where they are
/// shared as words, on a word.
fn strided(offsets: &Offsets, n: usize, leaves: &[Leaf], bytes: Shared) -> Option<(u32, usize)> {
    let (first, stride) = match offsets {
        Offsets::Uniform(_) => return None,
        Offsets::Strided { first, stride } => (*first, *stride as usize),
        Offsets::Varying(list) => {
            let first = *list.first()?;
            let stride = match list.get(1) {
                Some(&second) => second.checked_sub(first)? as usize,
                None => 0,
            };
            if stride == 0 && list.len() > 1 {
                return None;
            }
            let follows = list.iter().enumerate().all(|(l, &o)| u64::from(o) == u64::from(first) + (stride * l) as u64);
            if !follows {
                return None;
            }
            (first, stride)
        }
    };
    if first == OUT || leaves.iter().any(|l| l.kind == Kind::Bool) {
        return None;
    }
    if let Shared::Words(..) = bytes {
        let aligned = |x: u64| x.is_multiple_of(4);
        if !aligned(u64::from(first)) || !aligned(stride as u64) || !leaves.iter().all(|l| aligned(u64::from(l.offset)))
        {
            return None;
        }
    }
    let last_leaf = leaves.iter().map(|l| u64::from(l.offset) + 4).max()?;
    let end = u64::from(first) + stride as u64 * (n as u64).saturating_sub(1) + last_leaf;
    (end <= bytes.len() as u64).then_some((first, stride))
}

/// The memory an atomic works on.
pub(crate) enum Atomics<'a> {
    /// A binding's bytes.
    Shared(Shared<'a>),
    /// Workgroup memory's components.
    Words(&'a mut [u32]),
}

impl Atomics<'_> {
    pub(crate) fn read(&self, at: u32, leaf: Leaf) -> Option<u32> {
        match self {
            Atomics::Shared(b) => b.read(at, leaf),
            Atomics::Words(w) => w.get(at as usize).copied(),
        }
    }

    pub(crate) fn write(&mut self, at: u32, leaf: Leaf, v: u32) {
        match self {
            Atomics::Shared(b) => b.write(at, leaf, v),
            Atomics::Words(w) => {
                if let Some(x) = w.get_mut(at as usize) {
                    *x = v;
                }
            }
        }
    }
}

fn checked_read(bytes: &[AtomicU8], at: u32, leaf: Leaf) -> Option<u32> {
    let at = at as usize;
    let end = at.checked_add(leaf.kind.width() as usize)?;
    let b = bytes.get(at..end)?;
    Some(if leaf.kind == Kind::Bool {
        (b[0].load(Relaxed) != 0) as u32
    } else {
        u32::from_le_bytes([0, 1, 2, 3].map(|k| b[k].load(Relaxed)))
    })
}

/// Reads a component of plain bytes (root constants); out of bounds reads 0.
fn plain_read(bytes: &[u8], at: u32, leaf: Leaf) -> u32 {
    let at = at as usize;
    let Some(b) = at.checked_add(leaf.kind.width() as usize).and_then(|end| bytes.get(at..end)) else { return 0 };
    if leaf.kind == Kind::Bool {
        (b[0] != 0) as u32
    } else {
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
}

/// Writes a component; out of bounds writes nothing.
pub(crate) fn write_bytes(bytes: &[AtomicU8], at: u32, leaf: Leaf, v: u32) {
    let at = at as usize;
    let Some(end) = at.checked_add(leaf.kind.width() as usize) else { return };
    if let Some(b) = bytes.get(at..end) {
        if leaf.kind == Kind::Bool {
            b[0].store((v != 0) as u8, Relaxed);
        } else {
            for (d, x) in b.iter().zip(v.to_le_bytes()) {
                d.store(x, Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_bytes_read_and_write_the_same_bytes() {
        let word = Leaf { offset: 0, kind: Kind::U32 };
        let flag = Leaf { offset: 0, kind: Kind::Bool };
        // 4-aligned backing store; shared from byte 0 (words) and from byte 1 (bytes).
        let mut backing = vec![0u32; 5];
        let raw: &mut [u8] = bytemuck::cast_slice_mut(&mut backing);
        for unaligned in [false, true] {
            let b = if unaligned { &mut raw[1..19] } else { &mut raw[..18] };
            b.fill(0);
            let shared = share(b, true);
            assert_eq!(matches!(shared, Shared::Words(..)), !unaligned);
            assert_eq!(shared.len(), 18);
            shared.write(4, word, 0x1234_5678);
            shared.write(9, flag, 1);
            assert_eq!(shared.read(4, word), Some(0x1234_5678));
            assert_eq!(shared.read(8, flag), Some(0));
            assert_eq!(shared.read(9, flag), Some(1));
            // The last two bytes are no whole word: out of reach.
            assert_eq!(shared.read(16, word), None);
            shared.write(16, word, 7);
            // A view from a word keeps its words.
            let view = shared.range(4, 8).unwrap();
            assert_eq!(view.read(0, word), Some(0x1234_5678));
            assert_eq!(view.read(8, word), None);
            let bytes: Vec<u8> = b.to_vec();
            assert_eq!(&bytes[4..8], &0x1234_5678u32.to_le_bytes());
            assert_eq!((bytes[9], bytes[16], bytes[17]), (1, 0, 0));
        }
    }
}
