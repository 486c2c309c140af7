//! Texture loads, stores and size queries (`textureLoad`, `textureStore`, `textureDimensions`,
//! `textureNumLevels`, `textureNumLayers`) over the subresources a view selects.
//!
//! Texels are read and written in the view's format with the D3D conversions of the format
//! codec (`asyncmd_types::decode_texel`, `encode_texel`); a format whose channels are all 32
//! bits wide is copied word for word. A coordinate, slice or mip outside the view reads
//! (0, 0, 0, 0) and drops a write, as D3D12 specifies for out-of-bounds `Load` and UAV stores
//! (and as naga's `ReadZeroSkipWrite` makes the Vulkan device do).

// A lane's components sit in several slices at once (`c * lanes + l`): indexing by lane reads
// more plainly than zipping them.
#![allow(clippy::needless_range_loop)]

use super::engine::{Engine, Frame};
use super::memory::Memory;
use super::value::{zeroed, Offsets, Ptr, Region, Slot, Val};
use asyncmd_shader::TexelKind;
use asyncmd_types::{decode_texel, encode_texel, ClearData, ComponentClass, Format, Layout};
use naga::{Handle, TypeInner};
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// One mip of one slice of a view: where its texels start in the dispatch's buffer, its size
/// in texels, and the bytes of a row and of a depth slice.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sub {
    pub(crate) start: usize,
    pub(crate) size: [u32; 3],
    pub(crate) row: usize,
    pub(crate) plane: usize,
}

/// A texture view a binding reads or writes.
#[derive(Clone, Debug)]
pub(crate) struct Texture {
    /// The dispatch buffer holding the texture.
    pub(crate) buffer: usize,
    pub(crate) format: Format,
    /// Bytes of a texel.
    pub(crate) bytes: usize,
    pub(crate) mips: u32,
    pub(crate) slices: u32,
    /// A cube view: its slices are faces, six a cube.
    pub(crate) cube: bool,
    /// Each mip of each slice, mip-major (`mip * slices + slice`).
    pub(crate) subs: Vec<Sub>,
}

/// How a texel's bytes become the shader's components.
#[derive(Clone, Copy)]
enum Codec {
    /// Every channel a 32-bit word: copied as is, `channels` of them.
    Words { channels: usize, one: u32 },
    /// Anything else: through the format codec.
    Format(TexelKind),
}

impl Texture {
    fn codec(&self) -> Codec {
        let info = self.format.info();
        let kind = TexelKind::of(self.format);
        match info.layout {
            Layout::Channels { count, bits: 32, .. } if info.class != ComponentClass::Typeless => {
                let one = if kind == TexelKind::Float { 1.0f32.to_bits() } else { 1 };
                Codec::Words { channels: count as usize, one }
            }
            _ => Codec::Format(kind),
        }
    }

    /// The byte offset of texel `(x, y, z)` of mip `mip` of slice `slice`, if inside the view.
    #[inline]
    pub(crate) fn at(&self, [x, y, z]: [u32; 3], slice: u32, mip: u32) -> Option<usize> {
        if mip >= self.mips || slice >= self.slices {
            return None;
        }
        let s = self.subs.get(mip as usize * self.slices as usize + slice as usize)?;
        if x >= s.size[0] || y >= s.size[1] || z >= s.size[2] {
            return None;
        }
        Some(s.start + z as usize * s.plane + y as usize * s.row + x as usize * self.bytes)
    }
}

fn read_texel(bytes: &[AtomicU8], at: usize, codec: Codec, format: Format, n: usize, out: &mut [u32; 4]) {
    let Some(texel) = bytes.get(at..at + n) else { return };
    match codec {
        Codec::Words { channels, one } => {
            for (c, w) in texel.chunks_exact(4).take(channels).enumerate() {
                out[c] = u32::from_le_bytes([
                    w[0].load(Relaxed),
                    w[1].load(Relaxed),
                    w[2].load(Relaxed),
                    w[3].load(Relaxed),
                ]);
            }
            out[3] = if channels == 4 { out[3] } else { one };
        }
        Codec::Format(kind) => {
            let mut raw = [0u8; 16];
            raw.iter_mut().zip(texel).for_each(|(r, b)| *r = b.load(Relaxed));
            if let Some(t) = decode_texel(format, &raw) {
                *out = match kind {
                    TexelKind::Float | TexelKind::Uint => t.uints(),
                    TexelKind::Sint => t.sints().map(|x| x as u32),
                };
            }
        }
    }
}

fn write_texel(bytes: &[AtomicU8], at: usize, codec: Codec, format: Format, n: usize, v: [u32; 4]) {
    let Some(texel) = bytes.get(at..at + n) else { return };
    let encoded = match codec {
        Codec::Words { .. } => {
            let mut raw = [0u8; 16];
            raw.chunks_exact_mut(4).zip(v).for_each(|(r, x)| r.copy_from_slice(&x.to_le_bytes()));
            raw
        }
        Codec::Format(kind) => {
            let value = match kind {
                TexelKind::Float => ClearData::from_floats(v.map(f32::from_bits)),
                TexelKind::Uint | TexelKind::Sint => ClearData::from_uints(v),
            };
            match encode_texel(format, &value) {
                Some((raw, _)) => raw,
                None => return,
            }
        }
    };
    texel.iter().zip(encoded).for_each(|(b, x)| b.store(x, Relaxed));
}

/// Components of a value type: a vector's size, else 1.
fn comps_of(t: &TypeInner) -> usize {
    match *t {
        TypeInner::Vector { size, .. } => size as usize,
        _ => 1,
    }
}

impl<'e> Engine<'_, 'e, '_> {
    /// The texture view behind an image expression (borrowed from the dispatch's memory, not
    /// the engine, so the engine stays free to evaluate).
    fn texture(&mut self, fr: &mut Frame, image: Handle<naga::Expression>) -> Option<&'e Texture> {
        let Region::Binding(b) = self.ptr(fr, image).region else { return None };
        let mem: &'e Memory = self.mem;
        mem.texture(b)
    }

    /// Runs `op` on the image and sampler operands `handles` once for each distinct element
    /// the active lanes select where some is an array of descriptors indexed by a value that
    /// differs a lane, with those operands made that element and only its lanes active; each
    /// lane's result is its element's. With uniform operands, `op` runs once.
    pub(crate) fn per_element(
        &mut self,
        fr: &mut Frame,
        handles: &[Handle<naga::Expression>],
        mut op: impl FnMut(&mut Self, &mut Frame) -> Val,
    ) -> Val {
        let n = self.n;
        let ptrs: Vec<_> = handles.iter().map(|&h| self.ptr(fr, h)).collect();
        if ptrs.iter().all(|p| matches!(p.offsets, Offsets::Uniform(_))) {
            return op(self, fr);
        }
        let element = |l: usize| -> Vec<u32> { ptrs.iter().map(|p| p.offsets.get(l)).collect() };
        let saved: Vec<_> = handles.iter().map(|h| fr.vals[h.index()].clone()).collect();
        let active = fr.active.clone();
        let mut done: Vec<bool> = active.iter().map(|a| !a).collect();
        let mut out: Option<Val> = None;
        while let Some(lane) = done.iter().position(|d| !d) {
            let key = element(lane);
            let lanes: Vec<bool> = (0..n).map(|l| !done[l] && element(l) == key).collect();
            for ((h, p), &e) in handles.iter().zip(&ptrs).zip(&key) {
                let region = match p.region {
                    Region::Binding(b) => Region::Binding(b + e as usize),
                    other => other,
                };
                fr.vals[h.index()] = Some(Slot::ptr(Ptr { region, offsets: Offsets::Uniform(0) }));
            }
            fr.active.clone_from(&lanes);
            let v = op(self, fr);
            let merged = out.get_or_insert_with(|| Val::varying(v.comps, zeroed(v.comps * n)));
            for l in (0..n).filter(|&l| lanes[l]) {
                for c in 0..v.comps.min(merged.comps) {
                    merged.data[c * n + l] = v.get(c, l, n);
                }
                done[l] = true;
            }
        }
        for (h, v) in handles.iter().zip(saved) {
            fr.vals[h.index()] = v;
        }
        fr.active = active;
        // No active lane: nothing read; the value's shape is the operation's.
        out.unwrap_or_else(|| op(self, fr))
    }

    /// Each lane's coordinate (missing components 0), slice and mip, as unsigned words: a
    /// negative signed value wraps past every size and so reads as out of bounds.
    fn texel_args(
        &mut self,
        fr: &mut Frame,
        coordinate: Handle<naga::Expression>,
        array_index: Option<Handle<naga::Expression>>,
        level: Option<Handle<naga::Expression>>,
    ) -> (std::rc::Rc<Val>, Option<std::rc::Rc<Val>>, Option<std::rc::Rc<Val>>) {
        let coords = self.val(fr, coordinate);
        let slice = array_index.map(|a| self.val(fr, a));
        let level = level.map(|l| self.val(fr, l));
        (coords, slice, level)
    }

    /// `textureLoad`.
    pub(crate) fn image_load(
        &mut self,
        fr: &mut Frame,
        h: Handle<naga::Expression>,
        image: Handle<naga::Expression>,
        coordinate: Handle<naga::Expression>,
        array_index: Option<Handle<naga::Expression>>,
        level: Option<Handle<naga::Expression>>,
    ) -> Val {
        let n = self.n;
        let comps = comps_of(self.ty(fr, h));
        let (coords, slice, mip) = self.texel_args(fr, coordinate, array_index, level);
        let Some(tex) = self.texture(fr, image) else { return Val::zeros(comps) };
        let Some(bytes) = self.mem.buffer(tex.buffer) else { return Val::zeros(comps) };
        let uniform =
            coords.uniform && slice.as_ref().is_none_or(|v| v.uniform) && mip.as_ref().is_none_or(|v| v.uniform);
        let w = if uniform { 1 } else { n };
        let codec = tex.codec();
        let mut data = zeroed(comps * w);
        if let (false, Codec::Words { channels: 1, one }, true, true, 2, 4) = (
            uniform,
            codec,
            slice.as_ref().is_none_or(|v| v.uniform),
            mip.as_ref().is_none_or(|v| v.uniform),
            coords.comps,
            comps,
        ) {
            // The common case of a kernel reading a single-channel 32-bit 2D texture at each
            // lane's own texel: one subresource, a bounds check and a word per lane.
            let s = slice.as_ref().map_or(0, |v| v.data[0]);
            let m = mip.as_ref().map_or(0, |v| v.data[0]);
            let sub = (m < tex.mips && s < tex.slices)
                .then(|| tex.subs.get(m as usize * tex.slices as usize + s as usize))
                .flatten();
            if let Some(sub) = sub {
                let (xs, ys) = (&coords.data[..n], &coords.data[n..2 * n]);
                for l in 0..n {
                    let (x, y) = (xs[l], ys[l]);
                    if x < sub.size[0] && y < sub.size[1] {
                        let at = sub.start + y as usize * sub.row + x as usize * 4;
                        if let Some(b) = bytes.get(at..at + 4) {
                            data[l] = u32::from_le_bytes([
                                b[0].load(Relaxed),
                                b[1].load(Relaxed),
                                b[2].load(Relaxed),
                                b[3].load(Relaxed),
                            ]);
                            data[3 * n + l] = one;
                        }
                    }
                }
            }
            return Val { comps, uniform, data };
        }
        for l in 0..w {
            let xyz = std::array::from_fn(|c| if c < coords.comps { coords.get(c, l, n) } else { 0 });
            let s = slice.as_ref().map_or(0, |v| v.get(0, l, n));
            let m = mip.as_ref().map_or(0, |v| v.get(0, l, n));
            let mut texel = [0u32; 4];
            if let Some(at) = tex.at(xyz, s, m) {
                read_texel(bytes, at, codec, tex.format, tex.bytes, &mut texel);
            }
            for c in 0..comps {
                data[c * w + l] = texel[c];
            }
        }
        Val { comps, uniform, data }
    }

    /// `textureStore`, for the active lanes.
    pub(crate) fn image_store(
        &mut self,
        fr: &mut Frame,
        image: Handle<naga::Expression>,
        coordinate: Handle<naga::Expression>,
        array_index: Option<Handle<naga::Expression>>,
        value: Handle<naga::Expression>,
    ) {
        let n = self.n;
        let (coords, slice, _) = self.texel_args(fr, coordinate, array_index, None);
        let v = self.val(fr, value);
        let Some(tex) = self.texture(fr, image) else { return };
        let Some(bytes) = self.mem.buffer(tex.buffer) else { return };
        let codec = tex.codec();
        for l in 0..n {
            if !fr.active[l] {
                continue;
            }
            let xyz = std::array::from_fn(|c| if c < coords.comps { coords.get(c, l, n) } else { 0 });
            let s = slice.as_ref().map_or(0, |v| v.get(0, l, n));
            if let Some(at) = tex.at(xyz, s, 0) {
                let texel = std::array::from_fn(|c| if c < v.comps { v.get(c, l, n) } else { 0 });
                write_texel(bytes, at, codec, tex.format, tex.bytes, texel);
            }
        }
    }

    /// `textureDimensions`, `textureNumLevels`, `textureNumLayers`, `textureNumSamples`.
    pub(crate) fn image_query(
        &mut self,
        fr: &mut Frame,
        h: Handle<naga::Expression>,
        image: Handle<naga::Expression>,
        query: naga::ImageQuery,
    ) -> Val {
        let n = self.n;
        let comps = comps_of(self.ty(fr, h));
        let level = match query {
            naga::ImageQuery::Size { level: Some(l) } => Some(self.val(fr, l)),
            _ => None,
        };
        let Some(tex) = self.texture(fr, image) else { return Val::zeros(comps) };
        match query {
            naga::ImageQuery::NumLevels => Val::uniform(vec![tex.mips]),
            // A cube array's layers are its cubes.
            naga::ImageQuery::NumLayers => Val::uniform(vec![if tex.cube { tex.slices / 6 } else { tex.slices }]),
            naga::ImageQuery::NumSamples => Val::uniform(vec![1]),
            naga::ImageQuery::Size { .. } => {
                let uniform = level.as_ref().is_none_or(|v| v.uniform);
                let w = if uniform { 1 } else { n };
                let mut data = zeroed(comps * w);
                for l in 0..w {
                    // A mip past the view's has no size: 0, as an unbound view's.
                    let m = level.as_ref().map_or(0, |v| v.get(0, l, n));
                    if let Some(sub) = (m < tex.mips).then(|| tex.subs.get(m as usize * tex.slices as usize)).flatten()
                    {
                        for c in 0..comps.min(3) {
                            data[c * w + l] = sub.size[c];
                        }
                    }
                }
                Val { comps, uniform, data }
            }
        }
    }
}
