//! The surrogate: Gaussian-process regression with a Matérn-5/2 kernel and per-point noise.
//!
//! Written by hand (about 200 lines) rather than taken from a crate: the search needs a noise
//! variance per observation, a Cholesky factor it can extend by one row at a time (the
//! kriging-believer batch), cached `L⁻¹k*` vectors per candidate, and only `libm`'s `exp` and
//! `ln`, so that the same evaluations give the same bits natively and in wasm32. The crates
//! that offer GP regression (`egobox-gp` on ndarray and linfa, `friedrich` on nalgebra, `gprx`
//! with a rayon pool) bring large dependency trees into the web bundle and offer none of the
//! three. docs/adapt.md ("Surrogate") gives the model.

/// One observation: features, value, noise variance.
#[derive(Debug, Clone)]
pub struct Obs {
    pub x: Vec<f64>,
    pub y: f64,
    pub noise: f64,
}

/// The lengthscales the fit chooses from, by maximum log marginal likelihood.
pub const LENGTHSCALES: [f64; 4] = [0.25, 0.5, 1.0, 2.0];

/// A fitted GP (constant mean, signal variance, one lengthscale).
#[derive(Debug, Clone)]
pub struct Gp {
    xs: Vec<Vec<f64>>,
    /// Lower Cholesky factor of K + noise, row `i` holding its `i + 1` entries.
    l: Vec<Vec<f64>>,
    /// `(K + noise)⁻¹ (y − mean)`; zero for believed (pseudo) observations.
    alpha: Vec<f64>,
    pub mean: f64,
    pub signal: f64,
    pub lengthscale: f64,
    /// Log marginal likelihood at the chosen lengthscale.
    pub lml: f64,
}

/// Matérn-5/2 correlation at distance `d` for lengthscale `ls`.
pub fn matern52(d: f64, ls: f64) -> f64 {
    let r = libm::sqrt(5.0) * d / ls;
    (1.0 + r + r * r / 3.0) * libm::exp(-r)
}

fn dist(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, y) in a.iter().zip(b) {
        s += (x - y) * (x - y);
    }
    libm::sqrt(s)
}

/// The dot product in four interleaved partial sums. One running sum is a chain of dependent
/// additions the compiler may not reorder; four independent ones fill vector lanes, and this
/// product is most of a round's search time (the candidates' triangular solves). The order is
/// fixed in the source, so the bits are the same natively and in wasm32.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f64 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..4 {
            acc[k] += x[k] * y[k];
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

impl Gp {
    /// Fits the observations: mean = mean(y), signal = max(var(y), 0.01), the lengthscale of
    /// highest log marginal likelihood (ties to the smaller). `None` without observations.
    pub fn fit(obs: &[Obs]) -> Option<Gp> {
        if obs.is_empty() {
            return None;
        }
        let n = obs.len() as f64;
        let mean = obs.iter().map(|o| o.y).sum::<f64>() / n;
        let var = obs.iter().map(|o| (o.y - mean) * (o.y - mean)).sum::<f64>() / n;
        let signal = var.max(0.01);
        let mut best: Option<Gp> = None;
        for ls in LENGTHSCALES {
            let gp = Gp::with(obs, mean, signal, ls);
            if best.as_ref().is_none_or(|b| gp.lml > b.lml) {
                best = Some(gp);
            }
        }
        best
    }

    /// The GP with fixed hyperparameters.
    pub fn with(obs: &[Obs], mean: f64, signal: f64, lengthscale: f64) -> Gp {
        let mut gp =
            Gp { xs: Vec::new(), l: Vec::new(), alpha: Vec::new(), mean, signal, lengthscale, lml: 0.0 };
        for o in obs {
            gp.push(&o.x, o.noise);
        }
        let r: Vec<f64> = obs.iter().map(|o| o.y - mean).collect();
        let z = gp.solve_lower(&r);
        gp.alpha = gp.solve_upper(&z);
        let log_det: f64 = gp.l.iter().enumerate().map(|(i, row)| libm::log(row[i])).sum();
        let n = obs.len() as f64;
        gp.lml = -0.5 * dot(&z, &z) - log_det - 0.5 * n * libm::log(2.0 * core::f64::consts::PI);
        gp
    }

    fn kernel(&self, a: &[f64], b: &[f64]) -> f64 {
        self.signal * matern52(dist(a, b), self.lengthscale)
    }

    /// Observations the factor holds (real and believed).
    pub fn len(&self) -> usize {
        self.xs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.xs.is_empty()
    }

    /// Extends the Cholesky factor by the row of a new point (O(n²)); returns that row.
    fn push(&mut self, x: &[f64], noise: f64) -> Vec<f64> {
        let k: Vec<f64> = self.xs.iter().map(|p| self.kernel(p, x)).collect();
        let mut row = self.solve_lower(&k);
        let jitter = 1e-9 * self.signal;
        let d2 = self.signal + noise + jitter - dot(&row, &row);
        row.push(libm::sqrt(d2.max(jitter)));
        self.l.push(row.clone());
        self.xs.push(x.to_vec());
        self.alpha.push(0.0);
        row
    }

    /// `L⁻¹ b` by forward substitution.
    fn solve_lower(&self, b: &[f64]) -> Vec<f64> {
        let mut out: Vec<f64> = Vec::with_capacity(b.len());
        for (i, row) in self.l.iter().enumerate().take(b.len()) {
            let s = b[i] - dot(&row[..i], &out);
            out.push(s / row[i]);
        }
        out
    }

    /// `L⁻ᵀ b` by back substitution.
    fn solve_upper(&self, b: &[f64]) -> Vec<f64> {
        let n = b.len();
        let mut out = vec![0.0; n];
        for i in (0..n).rev() {
            let mut s = b[i];
            for (j, o) in out.iter().enumerate().skip(i + 1) {
                s -= self.l[j][i] * o;
            }
            out[i] = s / self.l[i][i];
        }
        out
    }

    /// The cached quantities of a candidate point: its posterior mean and `L⁻¹k*`.
    pub fn candidate(&self, x: &[f64]) -> Candidate {
        let k: Vec<f64> = self.xs.iter().map(|p| self.kernel(p, x)).collect();
        let mu = self.mean + dot(&k, &self.alpha);
        Candidate { x: x.to_vec(), mu, v: self.solve_lower(&k) }
    }

    /// Posterior mean and variance of the latent function at `x`.
    pub fn predict(&self, x: &[f64]) -> (f64, f64) {
        let c = self.candidate(x);
        let var = self.variance(&c);
        (c.mu, var)
    }

    /// The posterior variance of a candidate (never negative).
    pub fn variance(&self, c: &Candidate) -> f64 {
        (self.signal - dot(&c.v, &c.v)).max(0.0)
    }

    /// Kriging believer: adds the pseudo-observation `y = μ(x)` with `noise`, which leaves every
    /// posterior mean as it was and shrinks the variances near `x`; each candidate's cached
    /// vector gets its one new entry (O(n) each).
    pub fn believe(&mut self, x: &[f64], noise: f64, candidates: &mut [Candidate]) {
        let row = self.push(x, noise);
        let (vc, d) = row.split_at(row.len() - 1);
        for c in candidates.iter_mut() {
            let e = (self.kernel(&c.x, x) - dot(&c.v, vc)) / d[0];
            c.v.push(e);
        }
    }
}

/// A candidate point with its posterior mean and `L⁻¹k*` (see [`Gp::candidate`]).
#[derive(Debug, Clone)]
pub struct Candidate {
    pub x: Vec<f64>,
    pub mu: f64,
    v: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(x: f64, y: f64, noise: f64) -> Obs {
        Obs { x: vec![x], y, noise }
    }

    /// Hand computation for three points at 0, 0.5, 1 with ℓ = 0.5, σ_f² = 1, noise 0.1:
    /// the posterior at 0.25 solved by Gaussian elimination in the test itself.
    #[test]
    fn three_point_posterior_matches_a_direct_solve() {
        let data = [obs(0.0, 1.0, 0.1), obs(0.5, 0.0, 0.1), obs(1.0, 0.5, 0.1)];
        let gp = Gp::with(&data, 0.5, 1.0, 0.5);
        let k = |a: f64, b: f64| matern52((a - b).abs(), 0.5);
        // K + noise (plus the jitter the factor adds), solved by Cramer's rule.
        let j = 1e-9;
        let m = [
            [k(0.0, 0.0) + 0.1 + j, k(0.0, 0.5), k(0.0, 1.0)],
            [k(0.5, 0.0), k(0.5, 0.5) + 0.1 + j, k(0.5, 1.0)],
            [k(1.0, 0.0), k(1.0, 0.5), k(1.0, 1.0) + 0.1 + j],
        ];
        let det = |m: [[f64; 3]; 3]| {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        };
        let solve = |b: [f64; 3]| {
            let d = det(m);
            let mut out = [0.0; 3];
            for (c, o) in out.iter_mut().enumerate() {
                let mut mc = m;
                for r in 0..3 {
                    mc[r][c] = b[r];
                }
                *o = det(mc) / d;
            }
            out
        };
        let alpha = solve([0.5, -0.5, 0.0]);
        let ks = [k(0.25, 0.0), k(0.25, 0.5), k(0.25, 1.0)];
        let mu = 0.5 + ks.iter().zip(alpha).map(|(a, b)| a * b).sum::<f64>();
        let w = solve(ks);
        let var = 1.0 - ks.iter().zip(w).map(|(a, b)| a * b).sum::<f64>();
        let (m2, v2) = gp.predict(&[0.25]);
        assert!((mu - m2).abs() < 1e-12, "{mu} vs {m2}");
        assert!((var - v2).abs() < 1e-12, "{var} vs {v2}");
    }

    #[test]
    fn believing_keeps_means_and_matches_a_refit() {
        let data = vec![obs(0.0, 1.0, 0.05), obs(0.7, 0.2, 0.05)];
        let mut gp = Gp::with(&data, 0.6, 0.5, 0.5);
        let mut cands: Vec<Candidate> = [0.1, 0.4, 0.9].iter().map(|&x| gp.candidate(&[x])).collect();
        let before: Vec<f64> = cands.iter().map(|c| c.mu).collect();
        let (mu_b, _) = gp.predict(&[0.4]);
        gp.believe(&[0.4], 0.05, &mut cands);
        let mut refit = data.clone();
        refit.push(obs(0.4, mu_b, 0.05));
        let fresh = Gp::with(&refit, 0.6, 0.5, 0.5);
        for (c, mu) in cands.iter().zip(before) {
            let (m, v) = fresh.predict(&c.x);
            assert!((m - mu).abs() < 1e-12);
            assert!((v - gp.variance(c)).abs() < 1e-12);
        }
        assert!(gp.variance(&cands[1]) < 0.06);
    }

    #[test]
    fn the_fit_picks_a_lengthscale_and_needs_data() {
        assert!(Gp::fit(&[]).is_none());
        let data: Vec<Obs> =
            (0..8).map(|i| obs(i as f64 / 7.0, if i < 4 { 0.0 } else { 1.0 }, 0.02)).collect();
        let gp = Gp::fit(&data).unwrap();
        assert!(LENGTHSCALES.contains(&gp.lengthscale));
        assert_eq!(gp.mean, 0.5);
        let (lo, _) = gp.predict(&[0.0]);
        let (hi, _) = gp.predict(&[1.0]);
        assert!(lo < 0.3 && hi > 0.7, "{lo} {hi}");
    }
}
