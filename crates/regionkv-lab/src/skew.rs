//! Skew measures of a load spread over regions (writes, reads or bytes per region): how far
//! a design is from spreading its load evenly. Four numbers, because people come from
//! different places: max/mean (the hot region's load over the average: what Key
//! Visualizer-style tools show), the coefficient of variation, the Gini coefficient, and
//! HBase's own balancer cost for such an array (`DoubleArrayCost`, used by the stochastic
//! load balancer's cost functions), which scales the array's deviation between the
//! smallest deviation whole units allow and the largest (everything on one).

/// The skew of one load array.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Skew {
    /// The largest load over the mean (1.0: even; n: all on one of n).
    pub max_over_mean: f64,
    /// Standard deviation (population) over the mean.
    pub cov: f64,
    /// Gini coefficient: 0 even, (n - 1) / n all on one.
    pub gini: f64,
    /// HBase's `DoubleArrayCost`: 0 as even as whole units allow, 1 all on one.
    pub balancer_cost: f64,
}

/// The skew of `loads` (one entry per region; an empty or all-zero array is even).
pub fn skew(loads: &[f64]) -> Skew {
    let n = loads.len() as f64;
    let total: f64 = loads.iter().sum();
    if loads.is_empty() || total <= 0.0 {
        return Skew {
            max_over_mean: 1.0,
            cov: 0.0,
            gini: 0.0,
            balancer_cost: 0.0,
        };
    }
    let mean = total / n;
    let max = loads.iter().copied().fold(f64::MIN, f64::max);
    let sq: f64 = loads.iter().map(|x| (x - mean) * (x - mean)).sum();
    let cov = (sq / n).sqrt() / mean;
    let mut sorted = loads.to_vec();
    sorted.sort_by(f64::total_cmp);
    let weighted: f64 = sorted
        .iter()
        .enumerate()
        .map(|(i, x)| (i as f64 + 1.0) * x)
        .sum();
    let gini = (2.0 * weighted) / (n * total) - (n + 1.0) / n;
    Skew {
        max_over_mean: max / mean,
        cov,
        gini,
        balancer_cost: balancer_cost(sq.sqrt(), total, n),
    }
}

/// DoubleArrayCost's scaling of the deviation `value` (the root of the summed squared
/// differences from the mean) between the least deviation whole units of `total` allow
/// over `n` places and the most (all of it on one place); clamped to [0, 1].
fn balancer_cost(value: f64, total: f64, n: f64) -> f64 {
    let mean = total / n;
    let min = if n > total {
        // Not enough to go round: some places have one, the others none.
        ((n - total) * mean * mean + (1.0 - mean) * (1.0 - mean) * total).sqrt()
    } else {
        // Some places have one more than the others.
        let high = (total - mean.floor() * n).floor();
        let low = n - high;
        (high * (mean.ceil() - mean).powi(2) + low * (mean - mean.floor()).powi(2)).sqrt()
    };
    let max = ((total - mean) * (total - mean) + (n - 1.0) * mean * mean).sqrt();
    if max <= min || value <= min {
        return 0.0;
    }
    ((value - min) / (max - min)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn an_even_load_has_no_skew() {
        let s = skew(&[10.0, 10.0, 10.0, 10.0]);
        assert!(close(s.max_over_mean, 1.0) && close(s.cov, 0.0) && close(s.gini, 0.0));
        assert!(close(s.balancer_cost, 0.0));
        assert_eq!(skew(&[]).balancer_cost, 0.0);
        assert_eq!(skew(&[0.0, 0.0]).max_over_mean, 1.0);
    }

    #[test]
    fn all_on_one_is_the_worst() {
        let s = skew(&[0.0, 0.0, 0.0, 40.0]);
        assert!(close(s.max_over_mean, 4.0));
        assert!(close(s.gini, 0.75), "{}", s.gini);
        assert!(close(s.cov, 3.0_f64.sqrt()), "{}", s.cov);
        assert!(close(s.balancer_cost, 1.0), "{}", s.balancer_cost);
    }

    #[test]
    fn in_between() {
        // 1, 2, 3, 4: mean 2.5, max/mean 1.6; Gini = 2*(1+4+9+16)/(4*10) - 5/4 = 0.25.
        let s = skew(&[4.0, 1.0, 3.0, 2.0]);
        assert!(close(s.max_over_mean, 1.6));
        assert!(close(s.gini, 0.25), "{}", s.gini);
        assert!(
            s.balancer_cost > 0.0 && s.balancer_cost < 1.0,
            "{}",
            s.balancer_cost
        );
        // Whole units: 5 over 4 places cannot be more even than 2, 1, 1, 1 (cost 0).
        assert!(close(skew(&[2.0, 1.0, 1.0, 1.0]).balancer_cost, 0.0));
        // Fewer units than places: 1, 1, 0, 0 is as even as it gets.
        assert!(close(skew(&[1.0, 1.0, 0.0, 0.0]).balancer_cost, 0.0));
        assert!(skew(&[2.0, 0.0, 0.0, 0.0]).balancer_cost > 0.99);
    }
}
