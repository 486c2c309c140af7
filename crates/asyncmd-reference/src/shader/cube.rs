//! Cube textures: a direction picks a face and a point on it by D3D's (and Vulkan's) table,
//! and filtering is seamless: a texel of the footprint past a face's edge is read from the
//! face beyond, and at a cube's corner, where no texel lies past both edges, the average of
//! the three texels around the corner stands for it (D3D11.3 section 7.18.8; Vulkan's cube
//! map edge handling).
//!
//! Faces are the view's slices in D3D's order, +X, −X, +Y, −Y, +Z, −Z; cube `k` of an array
//! is slices `6k..6k + 6`. The major axis is the component of largest magnitude, x before y
//! before z on a tie (which D3D and Vulkan leave to the implementation).

use super::sample::{fetch, fetch_words, Blend, Sampled};
use asyncmd_shader::TexelKind;

/// The face `dir` points at and the point on it, each coordinate in 0–1.
pub(crate) fn face_of([x, y, z]: [f64; 3]) -> (u32, f64, f64) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    // (face, sc, tc, |ma|)
    let (face, sc, tc, ma) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, -z, -y, ax)
        } else {
            (1, z, -y, ax)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if z >= 0.0 {
        (4, x, -y, az)
    } else {
        (5, -x, -y, az)
    };
    if ma == 0.0 || !ma.is_finite() {
        return (face, 0.5, 0.5);
    }
    (face, 0.5 * (sc / ma + 1.0), 0.5 * (tc / ma + 1.0))
}

/// The direction through the point (sc, tc) of `face`, each in −1–1 (past it off the face):
/// the table of `face_of` inverted.
fn direction(face: u32, sc: f64, tc: f64) -> [f64; 3] {
    match face {
        0 => [1.0, -tc, -sc],
        1 => [-1.0, -tc, sc],
        2 => [sc, 1.0, tc],
        3 => [sc, -1.0, -tc],
        4 => [sc, -tc, 1.0],
        _ => [-sc, -tc, -1.0],
    }
}

/// Where texel (i, j) of `face` of an n×n cube lies, for i and j at most one texel off the face
/// on one axis: on that face, or on the neighbour its centre's direction points at.
fn place(face: u32, i: i64, j: i64, n: u32) -> (u32, u32, u32) {
    let n64 = i64::from(n);
    if (0..n64).contains(&i) && (0..n64).contains(&j) {
        return (face, i as u32, j as u32);
    }
    let centre = |k: i64| (2 * k + 1) as f64 / f64::from(n) - 1.0;
    let (f, s, t) = face_of(direction(face, centre(i), centre(j)));
    let texel = |u: f64| ((u * f64::from(n)).floor() as i64).clamp(0, n64 - 1) as u32;
    (f, texel(s), texel(t))
}

/// The texel (i, j) of `face` stands for, as floats: a texel of this face or its neighbour,
/// or at a corner (both off the face) the average of the three around it.
pub(crate) fn texel(at: &Sampled, face_slice: u32, face: u32, [i, j]: [i64; 2], mip: u32) -> [f32; 4] {
    let Some(sub) = at.tex.subs.get(mip as usize * at.tex.slices as usize) else { return [0.0; 4] };
    let n = sub.size[0];
    let n64 = i64::from(n);
    let read = |(f, x, y): (u32, u32, u32)| {
        fetch(at.tex, at.bytes, [Some(x), Some(y), Some(0)], face_slice + f, mip, [0.0; 4])
    };
    let off = |k: i64| !(0..n64).contains(&k);
    if off(i) && off(j) {
        let (ic, jc) = (i.clamp(0, n64 - 1), j.clamp(0, n64 - 1));
        let three = [place(face, i, jc, n), place(face, ic, j, n), place(face, ic, jc, n)].map(read);
        return std::array::from_fn(|c| (three[0][c] + three[1][c] + three[2][c]) / 3.0);
    }
    read(place(face, i, j, n))
}

/// For a gather: texel (i, j) of `face` of mip 0 as its format decodes it, in words. At a
/// corner, floats average the three texels around it as filtering does; integers, which have
/// no average, read the corner texel of this face.
pub(crate) fn texel_words(at: &Sampled, face_slice: u32, face: u32, [i, j]: [i64; 2]) -> [u32; 4] {
    let Some(sub) = at.tex.subs.first() else { return [0; 4] };
    let n64 = i64::from(sub.size[0]);
    let off = |k: i64| !(0..n64).contains(&k);
    if off(i) && off(j) {
        if TexelKind::of(at.tex.format) == TexelKind::Float {
            return texel(at, face_slice, face, [i, j], 0).map(f32::to_bits);
        }
        return texel_words(at, face_slice, face, [i.clamp(0, n64 - 1), j.clamp(0, n64 - 1)]);
    }
    let (f, x, y) = place(face, i, j, sub.size[0]);
    fetch_words(at.tex, at.bytes, [Some(x), Some(y), Some(0)], face_slice + f, [0.0; 4])
}

/// The filtered value of mip `mip` of the cube whose +X face is slice `face_slice`, in
/// direction `dir`.
pub(crate) fn sample(at: &Sampled, linear: bool, dir: [f32; 3], face_slice: u32, mip: u32) -> [f32; 4] {
    let Some(sub) = at.tex.subs.get(mip as usize * at.tex.slices as usize) else { return [0.0; 4] };
    let n = f64::from(sub.size[0]);
    let (face, s, t) = face_of(dir.map(f64::from));
    let mut blend = Blend::new(at);
    if !linear {
        let k = |u: f64| ((u * n).floor() as i64).clamp(0, n as i64 - 1);
        blend.add(1.0, texel(at, face_slice, face, [k(s), k(t)], mip));
        return blend.out;
    }
    let axis = |u: f64| {
        let x = u * n - 0.5;
        let i = x.floor();
        (i as i64, (x - i) as f32)
    };
    let ((i, wi), (j, wj)) = (axis(s), axis(t));
    for (dj, w) in [(0, 1.0 - wj), (1, wj)] {
        for (di, v) in [(0, 1.0 - wi), (1, wi)] {
            if w * v > 0.0 {
                blend.add(w * v, texel(at, face_slice, face, [i + di, j + dj], mip));
            }
        }
    }
    blend.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_major_axis_picks_its_face_and_the_point_on_it() {
        // Straight along each axis: the face's centre.
        let axes =
            [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, -1.0]];
        for (face, d) in axes.into_iter().enumerate() {
            assert_eq!(face_of(d), (face as u32, 0.5, 0.5));
        }
        // +X: s grows towards −z, t towards −y.
        assert_eq!(face_of([2.0, -1.0, -1.0]), (0, 0.75, 0.75));
        // −Y: s grows towards +x, t towards −z.
        assert_eq!(face_of([1.0, -2.0, -1.0]), (3, 0.75, 0.75));
    }

    #[test]
    fn a_texel_past_an_edge_is_the_neighbours_edge_texel() {
        // Past +X's right edge (s = 1 is −z) lies −Z's left column; rows keep their order.
        for j in 0..4 {
            assert_eq!(place(0, 4, j, 4), (5, 0, j as u32));
        }
        // Past +X's top edge (t = 0 is +y) lies +Y's right column (+x).
        assert_eq!(place(0, 1, -1, 4), (2, 3, 2));
        // Inside: itself.
        assert_eq!(place(3, 2, 1, 4), (3, 2, 1));
    }
}
