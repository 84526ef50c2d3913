//! Expectimax on whichever backend was chosen: [`ExpectimaxExecutor`] holds the CPU search or
//! a GPU one, and [`ExpectimaxMethod`] names the GPU's generation scheme (seed 4.4).

use crate::expectimax::ExpectimaxOptions;
use crate::CpuExecutor;
use cubesearch_core::backend::{self, Backend, ResolvedBackend};
use cubesearch_core::{Error, ExpectimaxEval, Result, RootValue};
use cubesearch_games::fib::Sliding;
use cubesearch_kernels::fib::GpuTiles;
use cubesearch_learn::NTupleNetwork;
use std::marker::PhantomData;
use std::str::FromStr;

/// How the GPU generates the tree (seed 4.4, Figure 9).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExpectimaxMethod {
    /// One unit per root-to-leaf path, every level recomputed on the way (Algorithm 1).
    Naive,
    /// One level at a time: each upper node computed once, invalid subtrees skipped.
    #[default]
    Multilevel,
}

impl ExpectimaxMethod {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ExpectimaxMethod::Naive => "naive",
            ExpectimaxMethod::Multilevel => "multilevel",
        }
    }
}

impl FromStr for ExpectimaxMethod {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "naive" => Ok(Self::Naive),
            "multilevel" => Ok(Self::Multilevel),
            _ => Err(Error::parse(format!(
                "bad expectimax method '{s}': naive or multilevel"
            ))),
        }
    }
}

/// Expectimax of 2584/2048 roots under an n-tuple network on the CPU or a GPU.
pub enum ExpectimaxExecutor<T: GpuTiles> {
    /// The CPU search (tree-parallel on all cores).
    Cpu(CpuExecutor, PhantomData<T>),
}

impl<T: GpuTiles> ExpectimaxExecutor<T> {
    /// Resolves `backend` and starts its searcher (`transposition` applies to the CPU).
    pub fn new(
        backend: Backend,
        method: ExpectimaxMethod,
        transposition: bool,
    ) -> Result<(Self, ResolvedBackend)> {
        let resolved = backend::resolve(backend)?;
        Ok((Self::on(&resolved, method, transposition)?, resolved))
    }

    /// The searcher of an already resolved backend.
    pub fn on(
        resolved: &ResolvedBackend,
        _method: ExpectimaxMethod,
        transposition: bool,
    ) -> Result<Self> {
        match resolved {
            ResolvedBackend::Cpu { threads } => {
                let mut cpu = CpuExecutor::new(*threads)?;
                cpu.expectimax = ExpectimaxOptions {
                    transposition,
                    split_ply: None,
                };
                Ok(Self::Cpu(cpu, PhantomData))
            }
            #[allow(unreachable_patterns)]
            _ => Err(Error::Unsupported(
                "GPU expectimax is not built yet: use --backend cpu".into(),
            )),
        }
    }
}

impl<T: GpuTiles> ExpectimaxEval<Sliding<T>, NTupleNetwork> for ExpectimaxExecutor<T> {
    fn evaluate(
        &mut self,
        game: &Sliding<T>,
        value: &NTupleNetwork,
        roots: &[<Sliding<T> as cubesearch_core::StochasticGame>::State],
        layers: u32,
    ) -> Result<Vec<RootValue>> {
        match self {
            Self::Cpu(cpu, _) => cpu.evaluate(game, value, roots, layers),
        }
    }
}
