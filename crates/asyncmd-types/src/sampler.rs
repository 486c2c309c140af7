//! Samplers (`D3D12_SAMPLER_DESC`, `D3D12_STATIC_SAMPLER_DESC`) and the comparison they use.

/// Comparison of depth and stencil tests and of comparison samplers (`D3D12_COMPARISON_FUNC`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ComparisonFunc {
    /// Never passes.
    Never,
    /// Passes if less.
    Less,
    /// Passes if equal.
    Equal,
    /// Passes if less or equal.
    LessEqual,
    /// Passes if greater.
    Greater,
    /// Passes if not equal.
    NotEqual,
    /// Passes if greater or equal.
    GreaterEqual,
    /// Always passes.
    #[default]
    Always,
}

impl ComparisonFunc {
    /// Applies the comparison `src <op> dst`.
    pub fn test<T: PartialOrd>(self, src: T, dst: T) -> bool {
        match self {
            ComparisonFunc::Never => false,
            ComparisonFunc::Less => src < dst,
            ComparisonFunc::Equal => src == dst,
            ComparisonFunc::LessEqual => src <= dst,
            ComparisonFunc::Greater => src > dst,
            ComparisonFunc::NotEqual => src != dst,
            ComparisonFunc::GreaterEqual => src >= dst,
            ComparisonFunc::Always => true,
        }
    }
}

/// Point or linear filtering of one of a sampler's three filters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FilterType {
    /// The nearest texel.
    #[default]
    Point,
    /// A weighted average of the nearest texels.
    Linear,
}

/// What a sampler does with the texels it filters (`D3D12_FILTER_REDUCTION_TYPE`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FilterReduction {
    /// The weighted average.
    #[default]
    Standard,
    /// Each texel compared with the reference value first (`SampleCmp`).
    Comparison,
    /// The minimum.
    Minimum,
    /// The maximum.
    Maximum,
}

/// A sampler's filter (`D3D12_FILTER`, decomposed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Filter {
    /// Minification.
    pub min: FilterType,
    /// Magnification.
    pub mag: FilterType,
    /// Between mip levels.
    pub mip: FilterType,
    /// Anisotropic filtering (`D3D12_FILTER_ANISOTROPIC` and its kin); `min`, `mag` and `mip`
    /// are then linear.
    pub anisotropic: bool,
    /// The reduction.
    pub reduction: FilterReduction,
}

/// How a coordinate outside 0–1 is brought back (`D3D12_TEXTURE_ADDRESS_MODE`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AddressMode {
    /// Repeats.
    #[default]
    Wrap,
    /// Repeats mirrored.
    Mirror,
    /// Clamps to the edge texel.
    Clamp,
    /// Returns the border colour.
    Border,
    /// Mirrors once about 0, then clamps.
    MirrorOnce,
}

/// A sampler description (`D3D12_SAMPLER_DESC`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerDesc {
    /// The filter.
    pub filter: Filter,
    /// Addressing of u, v and w.
    pub address: [AddressMode; 3],
    /// Added to the computed level of detail.
    pub mip_lod_bias: f32,
    /// 1–16 for anisotropic filters.
    pub max_anisotropy: u32,
    /// The comparison of comparison filters.
    pub comparison: ComparisonFunc,
    /// The colour `Border` addressing returns.
    pub border_color: [f32; 4],
    /// The smallest level of detail used.
    pub min_lod: f32,
    /// The largest level of detail used.
    pub max_lod: f32,
}

impl Default for SamplerDesc {
    fn default() -> Self {
        Self {
            filter: Filter::default(),
            address: [AddressMode::Clamp; 3],
            mip_lod_bias: 0.0,
            max_anisotropy: 1,
            comparison: ComparisonFunc::Never,
            border_color: [0.0; 4],
            min_lod: 0.0,
            max_lod: f32::MAX,
        }
    }
}

impl Eq for SamplerDesc {}

impl std::hash::Hash for SamplerDesc {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.filter.hash(state);
        self.address.hash(state);
        self.max_anisotropy.hash(state);
        self.comparison.hash(state);
        for f in [self.mip_lod_bias, self.min_lod, self.max_lod].iter().chain(&self.border_color) {
            f.to_bits().hash(state);
        }
    }
}

impl SamplerDesc {
    /// Why D3D12 refuses this description, if it does: anisotropy out of 1–16 on an anisotropic
    /// filter, a level-of-detail range that is not a range, a bias outside −16–15.99, a
    /// non-finite value.
    pub fn invalid_reason(&self) -> Option<String> {
        let f = [self.mip_lod_bias, self.min_lod, self.border_color[0], self.border_color[1]];
        let g = [self.border_color[2], self.border_color[3]];
        if f.iter().chain(&g).any(|v| v.is_nan()) || self.min_lod.is_infinite() {
            return Some("a sampler value is not a number (or MinLOD is infinite)".into());
        }
        if self.filter.anisotropic && !(1..=16).contains(&self.max_anisotropy) {
            return Some(format!("MaxAnisotropy {} is outside 1–16", self.max_anisotropy));
        }
        if self.max_lod.is_nan() || self.min_lod > self.max_lod {
            return Some(format!("MinLOD {} is above MaxLOD {}", self.min_lod, self.max_lod));
        }
        if !(-16.0..=15.99).contains(&self.mip_lod_bias) {
            return Some(format!("MipLODBias {} is outside −16–15.99", self.mip_lod_bias));
        }
        None
    }
}

/// The border colours a static sampler can name (`D3D12_STATIC_BORDER_COLOR`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StaticBorderColor {
    /// (0, 0, 0, 0).
    #[default]
    TransparentBlack,
    /// (0, 0, 0, 1).
    OpaqueBlack,
    /// (1, 1, 1, 1).
    OpaqueWhite,
}

impl StaticBorderColor {
    /// The colour as floats.
    pub fn rgba(self) -> [f32; 4] {
        match self {
            StaticBorderColor::TransparentBlack => [0.0; 4],
            StaticBorderColor::OpaqueBlack => [0.0, 0.0, 0.0, 1.0],
            StaticBorderColor::OpaqueWhite => [1.0; 4],
        }
    }
}
