//! `Dispatch`: the checks and bindings every dispatch of a kernel needs (what
//! `ExecuteIndirect` shares), and the dispatches a bundle leaves to the list that executes it.

use super::{CommandRecorder, Lists};
use crate::err;
use crate::shadow::RootArg;
use asyncmd_ddi::{Command, PipelineDesc};
use asyncmd_types::MessageId;

const ANY_SHADER: Lists = Lists::DIRECT.union(Lists::COMPUTE).union(Lists::BUNDLE);

impl CommandRecorder {
    /// `Dispatch`.
    pub fn dispatch(&mut self, x: u32, y: u32, z: u32) {
        const API: &str = "Dispatch";
        if x > 65535 || y > 65535 || z > 65535 {
            if self.begin(API, ANY_SHADER, false) {
                self.remove(err::invalid(
                    MessageId::DrawInvalid,
                    API,
                    format!("({x}, {y}, {z}) groups exceed 65535 in a dimension"),
                ));
            }
            return;
        }
        if self.ty == asyncmd_types::CommandListType::Bundle && self.reads_inherited_arguments() {
            // The executing list's root signature, arguments and tables: checked and read there.
            if self.begin(API, ANY_SHADER, false) {
                self.defer_bundled_clear(super::bundle_clear::BundledClear::Dispatch { x, y, z });
            }
            return;
        }
        if self.prepare_dispatch(API, &[]) {
            self.record(Command::Dispatch { x, y, z });
        }
    }

    /// In a bundle: whether the bound app kernel reads a root argument the bundle did not set
    /// (it then inherits it from the list that executes the bundle).
    pub(super) fn reads_inherited_arguments(&self) -> bool {
        let Some(app) = self.shadow.pipeline.as_ref().and_then(|p| p.0.app.clone()) else { return false };
        if self.shadow.compute_root.is_none() {
            return true;
        }
        let (_, bound) = &*app;
        let unset = |p: usize| matches!(self.shadow.compute_args.get(p), None | Some(RootArg::Unset));
        bound.immediates.is_some_and(unset)
            || bound.sources.iter().any(|s| match *s {
                asyncmd_shader::BindingSource::RootConstants { parameter }
                | asyncmd_shader::BindingSource::RootDescriptor { parameter }
                | asyncmd_shader::BindingSource::Table { parameter, .. } => unset(parameter),
                asyncmd_shader::BindingSource::StaticSampler { .. } => false,
            })
    }

    /// What every dispatch checks and binds: a compute pipeline and its root signature bound,
    /// the root arguments its kernel reads set (but those in `supplied`, which an indirect
    /// command sets), its tables read, and under legacy semantics its uses. `false` if the
    /// list was told of an error.
    pub(super) fn prepare_dispatch(&mut self, api: &str, supplied: &[usize]) -> bool {
        if !self.begin(api, ANY_SHADER, false) {
            return false;
        }
        let compute = matches!(self.shadow.pipeline.as_ref().map(|p| p.desc()), Some(PipelineDesc::Compute(_)));
        if !compute || self.shadow.compute_root.is_none() {
            self.remove(err::invalid(MessageId::DrawInvalid, api, "needs a compute pipeline and root signature"));
            return false;
        }
        if let Err(e) = Self::check_pipeline_root(api, self.shadow.pipeline.as_ref(), self.shadow.compute_root.as_ref())
        {
            self.remove(e);
            return false;
        }
        if let Err(e) = self.bind_tables(api, supplied) {
            self.remove(e);
            return false;
        }
        self.shader_uavs(api, true);
        true
    }
}
