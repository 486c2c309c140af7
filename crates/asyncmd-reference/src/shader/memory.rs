//! The memory a kernel reaches: its bindings' bytes (bounds-checked: out-of-bounds reads give 0
//! and writes are dropped), its push constants, and its own variables' components.
//!
//! Bindings are bytes that several batches, on several threads, may read and write at once
//! (`Program::dispatch`): each is accessed as `AtomicU8`s with relaxed ordering, which on the
//! usual processors compiles to plain loads and stores. Two groups writing one byte is a race
//! in the app's kernel (undefined results in D3D12), never undefined behaviour here.

use super::layout::{Kind, Leaf};
use super::texture::Texture;
use super::value::{Offsets, Ptr, Region, Val, OUT};
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// The bytes of `b` as atomics, for batches on several threads.
#[allow(unsafe_code)]
pub(crate) fn shared_bytes(b: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: `AtomicU8` has the size, alignment and bit validity of `u8`, and the unique
    // borrow of `b` is given up for the returned one, so no plain access to these bytes
    // happens while it lives (what the unstable `AtomicU8::from_mut_slice` does).
    unsafe { &*(b as *mut [u8] as *const [AtomicU8]) }
}

/// The memory a dispatch reads and writes.
pub(crate) struct Memory<'a> {
    /// Each resource the dispatch binds, once, however many views it has.
    pub(crate) buffers: Vec<&'a [AtomicU8]>,
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

    /// The dispatch buffer `i`, whole.
    pub(crate) fn buffer(&self, i: usize) -> Option<&[AtomicU8]> {
        self.buffers.get(i).copied()
    }

    pub(crate) fn view(&self, binding: usize) -> Option<&[AtomicU8]> {
        let v = (*self.bindings.get(binding)?)?;
        self.buffers.get(v.buffer)?.get(v.start..v.start.checked_add(v.len)?)
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
                    Offsets::Varying(offsets) => {
                        let mut data = vec![0; leaves.len() * n];
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
        if let Offsets::Varying(offsets) = &p.offsets {
            if let (Some((first, stride)), true) = (strided(offsets, leaves, bytes.len()), active.iter().all(|&a| a)) {
                // Lane l's element `stride` bytes after lane l − 1's, every lane active: each
                // leaf's words go out in one pass, bounds checked once.
                for (c, leaf) in leaves.iter().enumerate() {
                    let start = first as usize + leaf.offset as usize;
                    for l in 0..n {
                        let at = start + l * stride;
                        let x = v.get(c, l, n);
                        for (b, x) in bytes[at..at + 4].iter().zip(x.to_le_bytes()) {
                            b.store(x, Relaxed);
                        }
                    }
                }
                return;
            }
        }
        for (c, leaf) in leaves.iter().enumerate() {
            for (l, &on) in active.iter().enumerate() {
                let at = p.offsets.get(l);
                if on && at != OUT {
                    write_bytes(bytes, at.saturating_add(leaf.offset), *leaf, v.get(c, l, n));
                }
            }
        }
    }
}

/// Loads `leaves` from a binding's bytes.
fn load_bytes(bytes: &[AtomicU8], p: &Ptr, leaves: &[Leaf], n: usize) -> Val {
    match &p.offsets {
        Offsets::Uniform(o) => {
            Val::uniform(leaves.iter().map(|leaf| read_bytes(bytes, o.saturating_add(leaf.offset), *leaf)).collect())
        }
        Offsets::Varying(offsets) => {
            let mut data = vec![0; leaves.len() * n];
            let strided = strided(offsets, leaves, bytes.len());
            for (c, leaf) in leaves.iter().enumerate() {
                let out = &mut data[c * n..(c + 1) * n];
                if let Some((first, stride)) = strided {
                    // Lane l reads the element `stride` bytes after lane l − 1's: one pass over
                    // the bytes, bounds checked once.
                    let start = first as usize + leaf.offset as usize;
                    for (l, o) in out.iter_mut().enumerate() {
                        let w = &bytes[start + l * stride..start + l * stride + 4];
                        *o = u32::from_le_bytes([0, 1, 2, 3].map(|k| w[k].load(Relaxed)));
                    }
                    continue;
                }
                for (o, &at) in out.iter_mut().zip(offsets) {
                    if at != OUT {
                        *o = read_bytes(bytes, at.saturating_add(leaf.offset), *leaf);
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
            let mut data = vec![0; comps * n];
            for c in 0..comps {
                let at = (*o as usize + c) * n;
                if let Some(src) = words.get(at..at + n) {
                    data[c * n..(c + 1) * n].copy_from_slice(src);
                }
            }
            Val::varying(comps, data)
        }
        _ => {
            let mut data = vec![0; comps * n];
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
    if let (Offsets::Uniform(o), true) = (&p.offsets, per_lane) {
        if *o != OUT && active.iter().all(|&a| a) {
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
/// leaf is a bool and every leaf's word of every lane lies inside `len` bytes.
fn strided(offsets: &[u32], leaves: &[Leaf], len: usize) -> Option<(u32, usize)> {
    let first = *offsets.first()?;
    if first == OUT || leaves.iter().any(|l| l.kind == Kind::Bool) {
        return None;
    }
    let stride = match offsets.get(1) {
        Some(&second) => second.checked_sub(first)? as usize,
        None => 0,
    };
    if stride == 0 && offsets.len() > 1 {
        return None;
    }
    let last_leaf = leaves.iter().map(|l| u64::from(l.offset) + 4).max()?;
    let end = u64::from(first) + stride as u64 * (offsets.len() as u64 - 1) + last_leaf;
    if end > len as u64 {
        return None;
    }
    offsets
        .iter()
        .enumerate()
        .all(|(l, &o)| u64::from(o) == u64::from(first) + stride as u64 * l as u64)
        .then_some((first, stride))
}

/// The memory an atomic works on.
pub(crate) enum Atomics<'a> {
    Bytes(&'a [AtomicU8]),
    Words(&'a mut [u32]),
}

impl Atomics<'_> {
    pub(crate) fn read(&self, at: u32, leaf: Leaf) -> Option<u32> {
        match self {
            Atomics::Bytes(b) => checked_read(b, at, leaf),
            Atomics::Words(w) => w.get(at as usize).copied(),
        }
    }

    pub(crate) fn write(&mut self, at: u32, leaf: Leaf, v: u32) {
        match self {
            Atomics::Bytes(b) => write_bytes(b, at, leaf, v),
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

/// Reads a component; out of bounds reads 0 (robust buffer access).
pub(crate) fn read_bytes(bytes: &[AtomicU8], at: u32, leaf: Leaf) -> u32 {
    checked_read(bytes, at, leaf).unwrap_or(0)
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
