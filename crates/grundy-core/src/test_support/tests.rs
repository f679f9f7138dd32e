//! Unit tests of `crates/grundy-core/src/test_support.rs`.

use super::*;

#[test]
fn mex_of_sets() {
    assert_eq!(mex([]), 0);
    assert_eq!(mex([1, 2]), 0);
    assert_eq!(mex([0, 0, 1, 3]), 2);
    assert_eq!(mex([2, 1, 0]), 3);
}

#[test]
fn splitmix64_reference_values() {
    // The first outputs for seed 0 (reference implementation by Vigna).
    let mut rng = Rng(0);
    assert_eq!(rng.next(), 0xE220_A839_7B1D_CDAF);
    assert_eq!(rng.next(), 0x6E78_9E6A_A1B9_65F4);
}

#[test]
fn brute_force_knows_nim_and_welter() {
    // Nim is the nim-sum; Welter [1|5|6] = 5 (thesis Ex. 3.4); misère Nim on 1+1 is won.
    let mut nim = Brute::new(nim_followers);
    assert_eq!(nim.value(&vec![3, 5, 6]), 0);
    assert_eq!(nim.value(&vec![1, 2, 4]), 7);
    assert!(nim.misere_wins(&vec![0, 0]));
    assert!(nim.misere_wins(&vec![1, 1]));
    assert!(!nim.misere_wins(&vec![0, 1]));
    assert_eq!(nim.winning_moves(&vec![1, 2], false), vec![(2, 1)]);
    assert_eq!(nim.winning_moves(&vec![1, 2], true), vec![(2, 0)]);
    let mut welter = Brute::new(welter_followers);
    assert_eq!(welter.value(&vec![1, 5, 6]), 5);
    assert_eq!(welter.winning_moves(&vec![1, 5, 7], false), vec![(7, 3)]);
}
