//! Arithmetic on one component of every lane, with WGSL's (and so naga's SPIR-V's) integer
//! rules: wrapping add, sub and mul; a zero divisor, or `i32::MIN / -1`, divides by one
//! instead; shifts take their amount modulo 32; float-to-int conversions saturate, NaN to 0.
//! Floats are IEEE-754 single precision with denormals kept (a GPU may flush them: the
//! conformance tests say where that shows).

use super::layout::Kind;
use naga::{BinaryOperator as B, MathFunction as M, UnaryOperator as U};

#[inline]
fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

#[inline]
fn fb(x: f32) -> u32 {
    x.to_bits()
}

/// `op` of each word of `a` (a word per lane, or one for all), appended to `out`.
#[inline]
pub(crate) fn map1(out: &mut Vec<u32>, a: &[u32], op: impl Fn(u32) -> u32) {
    out.extend(a.iter().map(|&x| op(x)));
}

/// `op` of the words of `a` and `b` lane by lane, appended to `out`; an operand of one word
/// goes with every lane.
#[inline]
pub(crate) fn map2(out: &mut Vec<u32>, a: &[u32], b: &[u32], op: impl Fn(u32, u32) -> u32) {
    if a.len() == b.len() {
        out.extend(a.iter().zip(b).map(|(&x, &y)| op(x, y)));
    } else if a.len() == 1 {
        let x = a[0];
        out.extend(b.iter().map(|&y| op(x, y)));
    } else {
        let y = b[0];
        out.extend(a.iter().map(|&x| op(x, y)));
    }
}

/// The same for three operands.
#[inline]
pub(crate) fn map3(out: &mut Vec<u32>, a: &[u32], b: &[u32], c: &[u32], op: impl Fn(u32, u32, u32) -> u32) {
    let n = a.len().max(b.len()).max(c.len());
    if a.len() == n && b.len() == n && c.len() == n {
        out.extend(a.iter().zip(b).zip(c).map(|((&x, &y), &z)| op(x, y, z)));
        return;
    }
    let g = |s: &[u32], l: usize| if s.len() == 1 { s[0] } else { s[l] };
    out.extend((0..n).map(|l| op(g(a, l), g(b, l), g(c, l))));
}

pub(crate) fn unary(out: &mut Vec<u32>, op: U, kind: Kind, a: &[u32]) {
    match (op, kind) {
        (U::Negate, Kind::F32) => map1(out, a, |x| x ^ 0x8000_0000),
        (U::Negate, _) => map1(out, a, |x| (x as i32).wrapping_neg() as u32),
        (U::LogicalNot, _) => map1(out, a, |x| (x == 0) as u32),
        (U::BitwiseNot, _) => map1(out, a, |x| !x),
    }
}

/// The divisor WGSL's signed division and remainder use: one where it is zero. (`i32::MIN`
/// by −1, the other case WGSL divides by one instead, gives `i32::MIN` and 0 through the
/// wrapping operations already.)
fn divisor_i(y: u32) -> i32 {
    if y == 0 {
        1
    } else {
        y as i32
    }
}

/// `op` on scalars of `kind` (the left operand's; shifts take a u32 amount). Comparisons write
/// 0 or 1.
pub(crate) fn binary(out: &mut Vec<u32>, op: B, kind: Kind, a: &[u32], b: &[u32]) {
    match kind {
        Kind::F32 => match op {
            B::Add => map2(out, a, b, |x, y| fb(f(x) + f(y))),
            B::Subtract => map2(out, a, b, |x, y| fb(f(x) - f(y))),
            B::Multiply => map2(out, a, b, |x, y| fb(f(x) * f(y))),
            B::Divide => map2(out, a, b, |x, y| fb(f(x) / f(y))),
            // WGSL's `%` on floats truncates, as Rust's does.
            B::Modulo => map2(out, a, b, |x, y| fb(f(x) % f(y))),
            B::Equal => map2(out, a, b, |x, y| (f(x) == f(y)) as u32),
            B::NotEqual => map2(out, a, b, |x, y| (f(x) != f(y)) as u32),
            B::Less => map2(out, a, b, |x, y| (f(x) < f(y)) as u32),
            B::LessEqual => map2(out, a, b, |x, y| (f(x) <= f(y)) as u32),
            B::Greater => map2(out, a, b, |x, y| (f(x) > f(y)) as u32),
            B::GreaterEqual => map2(out, a, b, |x, y| (f(x) >= f(y)) as u32),
            _ => map2(out, a, b, |_, _| 0),
        },
        Kind::I32 => match op {
            B::Add => map2(out, a, b, |x, y| x.wrapping_add(y)),
            B::Subtract => map2(out, a, b, |x, y| x.wrapping_sub(y)),
            B::Multiply => map2(out, a, b, |x, y| x.wrapping_mul(y)),
            B::Divide => map2(out, a, b, |x, y| (x as i32).wrapping_div(divisor_i(y)) as u32),
            B::Modulo => map2(out, a, b, |x, y| (x as i32).wrapping_rem(divisor_i(y)) as u32),
            B::Less => map2(out, a, b, |x, y| ((x as i32) < (y as i32)) as u32),
            B::LessEqual => map2(out, a, b, |x, y| ((x as i32) <= (y as i32)) as u32),
            B::Greater => map2(out, a, b, |x, y| ((x as i32) > (y as i32)) as u32),
            B::GreaterEqual => map2(out, a, b, |x, y| ((x as i32) >= (y as i32)) as u32),
            B::ShiftRight => map2(out, a, b, |x, y| ((x as i32) >> (y & 31)) as u32),
            _ => bits(out, op, a, b),
        },
        Kind::U32 | Kind::Bool => match op {
            B::Add => map2(out, a, b, |x, y| x.wrapping_add(y)),
            B::Subtract => map2(out, a, b, |x, y| x.wrapping_sub(y)),
            B::Multiply => map2(out, a, b, |x, y| x.wrapping_mul(y)),
            B::Divide => map2(out, a, b, |x, y| x / if y == 0 { 1 } else { y }),
            B::Modulo => map2(out, a, b, |x, y| x % if y == 0 { 1 } else { y }),
            B::Less => map2(out, a, b, |x, y| (x < y) as u32),
            B::LessEqual => map2(out, a, b, |x, y| (x <= y) as u32),
            B::Greater => map2(out, a, b, |x, y| (x > y) as u32),
            B::GreaterEqual => map2(out, a, b, |x, y| (x >= y) as u32),
            B::ShiftRight => map2(out, a, b, |x, y| x >> (y & 31)),
            _ => bits(out, op, a, b),
        },
    }
}

fn bits(out: &mut Vec<u32>, op: B, a: &[u32], b: &[u32]) {
    match op {
        B::Equal => map2(out, a, b, |x, y| (x == y) as u32),
        B::NotEqual => map2(out, a, b, |x, y| (x != y) as u32),
        B::And | B::LogicalAnd => map2(out, a, b, |x, y| x & y),
        B::InclusiveOr | B::LogicalOr => map2(out, a, b, |x, y| x | y),
        B::ExclusiveOr => map2(out, a, b, |x, y| x ^ y),
        B::ShiftLeft => map2(out, a, b, |x, y| x << (y & 31)),
        _ => map2(out, a, b, |_, _| 0),
    }
}

/// Converts a component from `from` to `to` (`As` with a width: value conversion).
pub(crate) fn convert(from: Kind, to: Kind, x: u32) -> u32 {
    match (from, to) {
        (a, b) if a == b => x,
        // WGSL clamps in floats first, to the largest f32 the integer type holds: 2^31 − 128
        // and 2^32 − 256 (so `i32(3e9)` is 2147483520, not i32::MAX); NaN gives 0.
        (Kind::F32, Kind::I32) => (f(x).clamp(-2147483648.0, 2147483520.0) as i32) as u32,
        (Kind::F32, Kind::U32) => f(x).clamp(0.0, 4294967040.0) as u32,
        (Kind::I32, Kind::F32) => fb(x as i32 as f32),
        (Kind::U32, Kind::F32) => fb(x as f32),
        (Kind::Bool, Kind::F32) => fb(if x != 0 { 1.0 } else { 0.0 }),
        (Kind::Bool, _) => (x != 0) as u32,
        (Kind::F32, Kind::Bool) => (f(x) != 0.0) as u32,
        (_, Kind::Bool) => (x != 0) as u32,
        // i32 ↔ u32 keep their bits.
        _ => x,
    }
}

/// The math functions on one component of each argument, by the kind of the first.
/// Appends the results to `out`; `None` for the functions that are not component-wise (the
/// caller does those).
pub(crate) fn math(out: &mut Vec<u32>, fun: M, kind: Kind, args: [Option<&[u32]>; 4]) -> Option<()> {
    let a = args[0]?;
    // Generic rather than a `fn` pointer, so that each function inlines into its loop.
    fn float1(out: &mut Vec<u32>, a: &[u32], op: impl Fn(f32) -> f32) {
        map1(out, a, |x| fb(op(f(x))))
    }
    match (fun, kind) {
        (M::Abs, Kind::F32) => map1(out, a, |x| x & 0x7FFF_FFFF),
        (M::Abs, Kind::I32) => map1(out, a, |x| (x as i32).wrapping_abs() as u32),
        (M::Abs, _) => out.extend_from_slice(a),
        (M::Min, Kind::F32) => map2(out, a, args[1]?, |x, y| fb(f(x).min(f(y)))),
        (M::Min, Kind::I32) => map2(out, a, args[1]?, |x, y| (x as i32).min(y as i32) as u32),
        (M::Min, _) => map2(out, a, args[1]?, |x, y| x.min(y)),
        (M::Max, Kind::F32) => map2(out, a, args[1]?, |x, y| fb(f(x).max(f(y)))),
        (M::Max, Kind::I32) => map2(out, a, args[1]?, |x, y| (x as i32).max(y as i32) as u32),
        (M::Max, _) => map2(out, a, args[1]?, |x, y| x.max(y)),
        (M::Clamp, Kind::F32) => map3(out, a, args[1]?, args[2]?, |x, lo, hi| fb(f(x).max(f(lo)).min(f(hi)))),
        (M::Clamp, Kind::I32) => {
            map3(out, a, args[1]?, args[2]?, |x, lo, hi| (x as i32).max(lo as i32).min(hi as i32) as u32)
        }
        (M::Clamp, _) => map3(out, a, args[1]?, args[2]?, |x, lo, hi| x.max(lo).min(hi)),
        (M::Saturate, _) => float1(out, a, |x| x.clamp(0.0, 1.0)),
        (M::Cos, _) => float1(out, a, f32::cos),
        (M::Cosh, _) => float1(out, a, f32::cosh),
        (M::Sin, _) => float1(out, a, f32::sin),
        (M::Sinh, _) => float1(out, a, f32::sinh),
        (M::Tan, _) => float1(out, a, f32::tan),
        (M::Tanh, _) => float1(out, a, f32::tanh),
        (M::Acos, _) => float1(out, a, f32::acos),
        (M::Asin, _) => float1(out, a, f32::asin),
        (M::Atan, _) => float1(out, a, f32::atan),
        (M::Asinh, _) => float1(out, a, f32::asinh),
        (M::Acosh, _) => float1(out, a, f32::acosh),
        (M::Atanh, _) => float1(out, a, f32::atanh),
        (M::Atan2, _) => map2(out, a, args[1]?, |y, x| fb(f(y).atan2(f(x)))),
        (M::Radians, _) => float1(out, a, f32::to_radians),
        (M::Degrees, _) => float1(out, a, f32::to_degrees),
        (M::Ceil, _) => float1(out, a, f32::ceil),
        (M::Floor, _) => float1(out, a, f32::floor),
        (M::Round, _) => float1(out, a, f32::round_ties_even),
        (M::Fract, _) => float1(out, a, |x| x - x.floor()),
        (M::Trunc, _) => float1(out, a, f32::trunc),
        (M::Exp, _) => float1(out, a, f32::exp),
        (M::Exp2, _) => float1(out, a, f32::exp2),
        (M::Log, _) => float1(out, a, f32::ln),
        (M::Log2, _) => float1(out, a, f32::log2),
        (M::Pow, _) => map2(out, a, args[1]?, |x, y| fb(f(x).powf(f(y)))),
        (M::Sqrt, _) => float1(out, a, f32::sqrt),
        (M::InverseSqrt, _) => float1(out, a, |x| 1.0 / x.sqrt()),
        (M::Sign, Kind::F32) => float1(out, a, |x| {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                0.0
            }
        }),
        (M::Sign, _) => map1(out, a, |x| (x as i32).signum() as u32),
        (M::Fma, _) => map3(out, a, args[1]?, args[2]?, |x, y, z| fb(f(x).mul_add(f(y), f(z)))),
        (M::Mix, _) => map3(out, a, args[1]?, args[2]?, |x, y, t| fb(f(x) * (1.0 - f(t)) + f(y) * f(t))),
        (M::Step, _) => map2(out, a, args[1]?, |edge, x| fb(if f(x) < f(edge) { 0.0 } else { 1.0 })),
        (M::SmoothStep, _) => map3(out, a, args[1]?, args[2]?, |e0, e1, x| {
            let t = ((f(x) - f(e0)) / (f(e1) - f(e0))).clamp(0.0, 1.0);
            fb(t * t * (3.0 - 2.0 * t))
        }),
        (M::CountTrailingZeros, _) => map1(out, a, u32::trailing_zeros),
        (M::CountLeadingZeros, _) => map1(out, a, u32::leading_zeros),
        (M::CountOneBits, _) => map1(out, a, u32::count_ones),
        (M::ReverseBits, _) => map1(out, a, u32::reverse_bits),
        (M::FirstTrailingBit, _) => map1(out, a, |x| if x == 0 { u32::MAX } else { x.trailing_zeros() }),
        (M::FirstLeadingBit, Kind::I32) => map1(out, a, |x| {
            // The most significant bit that differs from the sign bit.
            let v = if (x as i32) < 0 { !x } else { x };
            if v == 0 {
                u32::MAX
            } else {
                31 - v.leading_zeros()
            }
        }),
        (M::FirstLeadingBit, _) => map1(out, a, |x| if x == 0 { u32::MAX } else { 31 - x.leading_zeros() }),
        (M::ExtractBits, _) => map3(out, a, args[1]?, args[2]?, |x, o, c| extract_bits(kind, x, o, c)),
        (M::InsertBits, _) => {
            let (b, o, c) = (args[1]?, args[2]?, args[3]?);
            let n = a.len().max(b.len()).max(o.len()).max(c.len());
            let g = |s: &[u32], l: usize| if s.len() == 1 { s[0] } else { s[l] };
            out.extend((0..n).map(|l| insert_bits(g(a, l), g(b, l), g(o, l), g(c, l))));
        }
        _ => return None,
    }
    Some(())
}

/// WGSL's `insertBits`: offset and count clamped to the width.
fn insert_bits(x: u32, newbits: u32, offset: u32, count: u32) -> u32 {
    let o = offset.min(32);
    let c = count.min(32 - o);
    let mask = if c == 32 { u32::MAX } else { ((1u32 << c) - 1) << (o & 31) };
    if c == 0 {
        return x;
    }
    (x & !mask) | ((newbits << (o & 31)) & mask)
}

/// WGSL's `extractBits`: offset and count clamped to the width; signed results sign-extend.
fn extract_bits(kind: Kind, x: u32, offset: u32, count: u32) -> u32 {
    let o = offset.min(32);
    let c = count.min(32 - o);
    if c == 0 {
        return 0;
    }
    let v = (x >> (o & 31)) & if c == 32 { u32::MAX } else { (1 << c) - 1 };
    if kind == Kind::I32 && c < 32 && v >> (c - 1) & 1 == 1 {
        v | !((1u32 << c) - 1)
    } else {
        v
    }
}
