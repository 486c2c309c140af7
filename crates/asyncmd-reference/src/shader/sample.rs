//! `textureSampleLevel` (and `textureSampleLevel` at level 0): filtered reads of a float
//! texture through a sampler, by the D3D11.3 rules (section 7.18): the level of detail is the
//! shader's plus the sampler's bias, clamped to the sampler's range and then to the view's mips;
//! a level at or below 0 magnifies (the mag filter), above it minifies; a point filter takes the
//! texel containing the coordinate, a linear one blends the four (two, eight) nearest texel
//! centres; a point mip filter takes the nearest mip, a linear one blends the two around it.
//! Texel coordinates outside the mip wrap, mirror, clamp, read the border colour, or mirror
//! once, per axis. Weights are kept at full precision (a GPU keeps at least 8 bits of them, so
//! results differ from one by up to 1/256 of the distance between the texels blended).
//!
//! A minimum or maximum reduction (`D3D12_FILTER_MINIMUM_*`, `_MAXIMUM_*`) takes, per
//! component, the least or greatest of the texels the filter would blend with a weight above
//! 0, across both mips where a linear mip filter blends two.
//!
//! A constant texel offset (`textureSampleLevel(t, s, uv, level, vec2(1, -2))`, HLSL's
//! `offset` argument) moves the texel indices of every mip sampled by that many texels per
//! axis before addressing, as D3D11.3 section 7.18.4 puts it.
//!
//! `textureGather` reads one component of the four texels a bilinear read of mip 0 would blend,
//! unfiltered, in D3D's (and Vulkan's) order: (u0, v1), (u1, v1), (u1, v0), (u0, v0), where
//! u0 = floor(u · width − 0.5) and u1 = u0 + 1 after addressing.

use super::engine::{Engine, Frame};
use super::texture::Texture;
use super::value::{zeroed, Region, Val};
use asyncmd_types::{decode_texel, AddressMode, ComparisonFunc, FilterReduction, FilterType, SamplerDesc};
use naga::Handle;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// A texel coordinate on one axis after addressing: a texel index, or the border.
fn address(mode: AddressMode, i: i64, size: u32) -> Option<u32> {
    let n = i64::from(size.max(1));
    let t = match mode {
        AddressMode::Wrap => i.rem_euclid(n),
        AddressMode::Mirror => {
            let t = i.rem_euclid(2 * n);
            if t >= n {
                2 * n - 1 - t
            } else {
                t
            }
        }
        AddressMode::Clamp => i.clamp(0, n - 1),
        AddressMode::Border => return (0..n).contains(&i).then_some(i as u32),
        AddressMode::MirrorOnce => {
            let t = if i < 0 { -1 - i } else { i };
            t.clamp(0, n - 1)
        }
    };
    Some(t as u32)
}

/// The texel at `xyz` of `mip` and `slice` as floats; the border colour outside.
pub(crate) fn fetch(
    tex: &Texture,
    bytes: &[AtomicU8],
    xyz: [Option<u32>; 3],
    slice: u32,
    mip: u32,
    border: [f32; 4],
) -> [f32; 4] {
    let [Some(x), Some(y), Some(z)] = xyz else { return border };
    let Some(at) = tex.at([x, y, z], slice, mip) else { return [0.0; 4] };
    let Some(texel) = bytes.get(at..at + tex.bytes) else { return [0.0; 4] };
    let mut raw = [0u8; 16];
    raw.iter_mut().zip(texel).for_each(|(r, b)| *r = b.load(Relaxed));
    decode_texel(tex.format, &raw).map_or([0.0; 4], |t| t.floats())
}

/// The texel at `xyz` of `mip` and `slice` as its format decodes it, in words (float bits for
/// float formats); the border colour's bits outside.
pub(crate) fn fetch_words(
    tex: &Texture,
    bytes: &[AtomicU8],
    xyz: [Option<u32>; 3],
    slice: u32,
    border: [f32; 4],
) -> [u32; 4] {
    let [Some(x), Some(y), Some(z)] = xyz else { return border.map(f32::to_bits) };
    let Some(at) = tex.at([x, y, z], slice, 0) else { return [0; 4] };
    let Some(texel) = bytes.get(at..at + tex.bytes) else { return [0; 4] };
    let mut raw = [0u8; 16];
    raw.iter_mut().zip(texel).for_each(|(r, b)| *r = b.load(Relaxed));
    decode_texel(tex.format, &raw).map_or([0; 4], |t| t.uints())
}

/// Where an operation samples: each lane's coordinates, slice and the constant texel offset.
#[derive(Clone, Copy)]
pub(crate) struct At {
    pub(crate) coordinate: Handle<naga::Expression>,
    pub(crate) array_index: Option<Handle<naga::Expression>>,
    pub(crate) offset: [i64; 3],
    /// A comparison's reference value.
    pub(crate) depth_ref: Option<Handle<naga::Expression>>,
}

/// A texture's texels and the sampler that reads them.
pub(crate) struct Sampled<'a> {
    pub(crate) tex: &'a Texture,
    pub(crate) bytes: &'a [AtomicU8],
    pub(crate) s: &'a SamplerDesc,
    /// A comparison's reference value (`textureSampleCompareLevel`).
    pub(crate) depth_ref: Option<f32>,
}

/// Whether `r` compared with texel value `t` by `f` passes (`r f t`, D3D's and Vulkan's order).
fn passes(f: ComparisonFunc, r: f32, t: f32) -> bool {
    match f {
        ComparisonFunc::Never => false,
        ComparisonFunc::Less => r < t,
        ComparisonFunc::Equal => r == t,
        ComparisonFunc::LessEqual => r <= t,
        ComparisonFunc::Greater => r > t,
        ComparisonFunc::NotEqual => r != t,
        ComparisonFunc::GreaterEqual => r >= t,
        ComparisonFunc::Always => true,
    }
}

/// The texels of a footprint combined: weighted, or (min/max reductions) reduced.
pub(crate) struct Blend {
    reduction: FilterReduction,
    /// A comparison filter's function and reference value: each texel is 1 where it passes
    /// and 0 where it fails, and those are blended.
    compare: Option<(ComparisonFunc, f32)>,
    pub(crate) out: [f32; 4],
    first: bool,
}

impl Blend {
    pub(crate) fn new(at: &Sampled) -> Self {
        let compare = at.depth_ref.map(|r| (at.s.comparison, r));
        Self { reduction: at.s.filter.reduction, compare, out: [0.0; 4], first: true }
    }

    /// Adds a texel of weight `weight` (above 0).
    pub(crate) fn add(&mut self, weight: f32, t: [f32; 4]) {
        let t = match self.compare {
            Some((f, r)) => [f32::from(u8::from(passes(f, r, t[0]))); 4],
            None => t,
        };
        let out = &mut self.out;
        match self.reduction {
            FilterReduction::Minimum | FilterReduction::Maximum if self.first => *out = t,
            FilterReduction::Minimum => *out = std::array::from_fn(|c| out[c].min(t[c])),
            FilterReduction::Maximum => *out = std::array::from_fn(|c| out[c].max(t[c])),
            _ => out.iter_mut().zip(t).for_each(|(o, v)| *o += weight * v),
        }
        self.first = false;
    }
}

/// The filtered value of one mip at normalized coordinates `uvw` (`dims` of them used).
fn sample_mip(
    at: &Sampled,
    linear: bool,
    uvw: [f32; 3],
    offset: [i64; 3],
    dims: usize,
    slice: u32,
    mip: u32,
) -> [f32; 4] {
    let Sampled { tex, bytes, s, .. } = *at;
    let Some(sub) = tex.subs.get(mip as usize * tex.slices as usize) else { return [0.0; 4] };
    // Per axis: the texel indices taken and their weights.
    let mut axes = [[(0i64, 1.0f32), (0, 0.0)]; 3];
    for (a, axis) in axes.iter_mut().enumerate().take(dims) {
        let u = f64::from(uvw[a]) * f64::from(sub.size[a]);
        *axis = if linear {
            let x = u - 0.5;
            let i = x.floor();
            let w = (x - i) as f32;
            let i = i as i64 + offset[a];
            [(i, 1.0 - w), (i + 1, w)]
        } else {
            [(u.floor() as i64 + offset[a], 1.0), (0, 0.0)]
        };
    }
    let corners = if linear { 1usize << dims } else { 1 };
    let mut blend = Blend::new(at);
    for c in 0..corners {
        let mut weight = 1.0f32;
        let mut xyz = [Some(0u32); 3];
        for a in 0..dims {
            let (i, w) = axes[a][(c >> a) & 1];
            weight *= w;
            xyz[a] = address(s.address[a], i, sub.size[a]);
        }
        if weight == 0.0 {
            continue;
        }
        blend.add(weight, fetch(tex, bytes, xyz, slice, mip, s.border_color));
    }
    blend.out
}

/// Two mips' values blended `f` of the way to the second, or (min/max reductions) reduced.
fn between_mips(reduction: FilterReduction, a: [f32; 4], b: [f32; 4], f: f32) -> [f32; 4] {
    match reduction {
        FilterReduction::Minimum => std::array::from_fn(|c| a[c].min(b[c])),
        FilterReduction::Maximum => std::array::from_fn(|c| a[c].max(b[c])),
        _ => std::array::from_fn(|c| a[c] * (1.0 - f) + b[c] * f),
    }
}

impl Engine<'_, '_, '_> {
    /// The constant texel offset of a sampling operation, per axis (0 without one).
    pub(crate) fn offset(&mut self, fr: &mut Frame, offset: Option<Handle<naga::Expression>>) -> [i64; 3] {
        let Some(h) = offset else { return [0; 3] };
        let v = self.val(fr, h);
        std::array::from_fn(|a| if a < v.comps { i64::from(v.get(a, 0, self.n) as i32) } else { 0 })
    }

    /// `textureGather(component, t, s, coords[, slice])` and `textureGatherCompare(t, s,
    /// coords[, slice], reference)`: see the module's note.
    pub(crate) fn image_gather(
        &mut self,
        fr: &mut Frame,
        component: naga::SwizzleComponent,
        image: Handle<naga::Expression>,
        sampler: Handle<naga::Expression>,
        At { coordinate, array_index, offset, depth_ref }: At,
    ) -> Val {
        let n = self.n;
        let coords = self.val(fr, coordinate);
        let slice = array_index.map(|a| self.val(fr, a));
        let reference = depth_ref.map(|r| self.val(fr, r));
        let Region::Binding(t) = self.ptr(fr, image).region else { return Val::zeros(4) };
        let Region::Binding(sb) = self.ptr(fr, sampler).region else { return Val::zeros(4) };
        let (Some(tex), Some(s)) = (self.mem.texture(t), self.mem.sampler(sb)) else { return Val::zeros(4) };
        let Some(bytes) = self.mem.buffer(tex.buffer) else { return Val::zeros(4) };
        let Some(sub) = tex.subs.first() else { return Val::zeros(4) };
        let signed =
            slice.as_ref().is_some_and(|_| array_index.is_some_and(|a| self.kind(fr, a) == super::layout::Kind::I32));
        let uniform =
            coords.uniform && slice.as_ref().is_none_or(|v| v.uniform) && reference.as_ref().is_none_or(|v| v.uniform);
        let w = if uniform { 1 } else { n };
        let c = component as usize;
        let mut data = zeroed(4 * w);
        // A comparison gather (`textureGatherCompare`, HLSL's `GatherCmp`) gives each texel's
        // comparison, 1.0 or 0.0, in place of its red component.
        let compared = |l: usize, texel: [f32; 4]| {
            let r = reference.as_ref().map_or(0.0, |v| f32::from_bits(v.get(0, l, n)));
            f32::from(u8::from(passes(s.comparison, r, texel[0]))).to_bits()
        };
        if tex.cube {
            // The footprint of mip 0 on the face the direction picks, seamless (`cube.rs`).
            let at = Sampled { tex, bytes, s: &s, depth_ref: None };
            let size = f64::from(sub.size[0]);
            let cubes = tex.slices / 6;
            for l in 0..w {
                let dir = std::array::from_fn(|a| f64::from(f32::from_bits(coords.get(a, l, n))));
                let (face, u, v) = super::cube::face_of(dir);
                let (i, j) = ((u * size - 0.5).floor() as i64, (v * size - 0.5).floor() as i64);
                let raw = slice.as_ref().map_or(0, |v| v.get(0, l, n));
                let cube = if signed && (raw as i32) < 0 { 0 } else { raw.min(cubes.saturating_sub(1)) };
                for (k, ij) in [[i, j + 1], [i + 1, j + 1], [i + 1, j], [i, j]].into_iter().enumerate() {
                    data[k * w + l] = match reference {
                        Some(_) => compared(l, super::cube::texel(&at, 6 * cube, face, ij, 0)),
                        None => super::cube::texel_words(&at, 6 * cube, face, ij)[c],
                    };
                }
            }
            return Val { comps: 4, uniform, data };
        }
        for l in 0..w {
            let corner = |a: usize| {
                let u = f64::from(f32::from_bits(coords.get(a, l, n))) * f64::from(sub.size[a]) - 0.5;
                let i = u.floor() as i64 + offset[a];
                (address(s.address[a], i, sub.size[a]), address(s.address[a], i + 1, sub.size[a]))
            };
            let ((u0, u1), (v0, v1)) = (corner(0), corner(1));
            let raw = slice.as_ref().map_or(0, |v| v.get(0, l, n));
            let layer = if signed && (raw as i32) < 0 { 0 } else { raw.min(tex.slices.saturating_sub(1)) };
            for (k, (u, v)) in [(u0, v1), (u1, v1), (u1, v0), (u0, v0)].into_iter().enumerate() {
                let xyz = [u, v, Some(0)];
                data[k * w + l] = match reference {
                    Some(_) => compared(l, fetch(tex, bytes, xyz, layer, 0, s.border_color)),
                    None => fetch_words(tex, bytes, xyz, layer, s.border_color)[c],
                };
            }
        }
        Val { comps: 4, uniform, data }
    }

    /// `textureSampleLevel(t, s, coords[, slice], level)`.
    pub(crate) fn image_sample(
        &mut self,
        fr: &mut Frame,
        image: Handle<naga::Expression>,
        sampler: Handle<naga::Expression>,
        At { coordinate, array_index, offset, depth_ref }: At,
        level: Option<Handle<naga::Expression>>,
    ) -> Val {
        let n = self.n;
        let coords = self.val(fr, coordinate);
        let slice = array_index.map(|a| self.val(fr, a));
        let lod = level.map(|l| self.val(fr, l));
        let depth_ref = depth_ref.map(|r| self.val(fr, r));
        let Region::Binding(t) = self.ptr(fr, image).region else { return Val::zeros(4) };
        let Region::Binding(sb) = self.ptr(fr, sampler).region else { return Val::zeros(4) };
        let (Some(tex), Some(s)) = (self.mem.texture(t), self.mem.sampler(sb)) else { return Val::zeros(4) };
        let Some(bytes) = self.mem.buffer(tex.buffer) else { return Val::zeros(4) };
        let signed =
            slice.as_ref().is_some_and(|_| array_index.is_some_and(|a| self.kind(fr, a) == super::layout::Kind::I32));
        let uniform = coords.uniform
            && slice.as_ref().is_none_or(|v| v.uniform)
            && lod.as_ref().is_none_or(|v| v.uniform)
            && depth_ref.as_ref().is_none_or(|v| v.uniform);
        // A UNORM texture compares with the reference clamped to 0–1.
        let unorm = tex.format.info().class == asyncmd_types::ComponentClass::Unorm;
        let w = if uniform { 1 } else { n };
        let dims = coords.comps.min(3);
        let q = tex.mips.saturating_sub(1) as f32;
        let mut data = zeroed(4 * w);
        // A cube array's index picks a cube of six slices.
        let (layers, per_layer) = if tex.cube { (tex.slices / 6, 6) } else { (tex.slices, 1) };
        let one_mip = |at: &Sampled, linear: bool, uvw: [f32; 3], layer: u32, mip: u32| {
            if tex.cube {
                super::cube::sample(at, linear, uvw, layer * per_layer, mip)
            } else {
                sample_mip(at, linear, uvw, offset, dims, layer, mip)
            }
        };
        for l in 0..w {
            let reference = depth_ref.as_ref().map(|r| f32::from_bits(r.get(0, l, n)));
            let reference = reference.map(|r| if unorm { r.clamp(0.0, 1.0) } else { r });
            let at = Sampled { tex, bytes, s: &s, depth_ref: reference };
            let at = &at;
            let uvw = std::array::from_fn(|a| if a < dims { f32::from_bits(coords.get(a, l, n)) } else { 0.0 });
            // An integer slice, clamped to the view's.
            let raw = slice.as_ref().map_or(0, |v| v.get(0, l, n));
            let layer = if signed && (raw as i32) < 0 { 0 } else { raw.min(layers.saturating_sub(1)) };
            let given = lod.as_ref().map_or(0.0, |v| f32::from_bits(v.get(0, l, n)));
            let lod = (given + s.mip_lod_bias).clamp(s.min_lod, s.max_lod.max(s.min_lod));
            let minify = lod > 0.0;
            let filter = if minify { s.filter.min } else { s.filter.mag };
            let linear = s.filter.anisotropic || filter == FilterType::Linear;
            let d = if lod.is_nan() { 0.0 } else { lod.clamp(0.0, q) };
            let texel = if s.filter.anisotropic || s.filter.mip == FilterType::Linear {
                let m0 = d.floor();
                let f = d - m0;
                let a = one_mip(at, linear, uvw, layer, m0 as u32);
                if f > 0.0 {
                    let b = one_mip(at, linear, uvw, layer, (m0 as u32 + 1).min(q as u32));
                    between_mips(s.filter.reduction, a, b, f)
                } else {
                    a
                }
            } else {
                one_mip(at, linear, uvw, layer, (d + 0.5).floor() as u32)
            };
            for (c, v) in texel.iter().enumerate() {
                data[c * w + l] = v.to_bits();
            }
        }
        Val { comps: 4, uniform, data }
    }
}
