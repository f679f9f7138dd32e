//! Unit tests of `crates/grundy-core/src/explain.rs`.

use super::*;

fn mating_value(steps: &[MatingStep]) -> u64 {
    steps.iter().fold(0, |acc, s| match s {
        MatingStep::Pair { value, .. } => acc ^ value,
        MatingStep::Single { coin } => acc ^ coin,
    })
}

#[test]
fn example_3_8_and_3_15() {
    let pos = [1, 3, 7, 8, 11, 19];
    let steps = mating(&pos);
    assert_eq!(
        steps,
        vec![
            MatingStep::Pair {
                a: 3,
                b: 19,
                depth: 4,
                value: 15
            },
            MatingStep::Pair {
                a: 7,
                b: 11,
                depth: 2,
                value: 11
            },
            MatingStep::Pair {
                a: 1,
                b: 8,
                depth: 0,
                value: 8
            },
        ]
    );
    assert_eq!(mating_value(&steps), 12);
    assert_eq!(
        triangle(&pos),
        vec![
            vec![0, 0, 0, 0, 0, 0, 0],
            vec![1, 3, 7, 8, 11, 19],
            vec![1, 3, 14, 2, 23],
            vec![2, 11, 3, 31],
            vec![11, 9, 25],
            vec![10, 12],
            vec![12],
        ]
    );
}

#[test]
fn sprague_examples_6_29_and_6_30() {
    let s = sprague(&[1, 3, 6, 8, 14]).unwrap();
    assert_eq!(s.renumbered, vec![15, 13, 10, 8, 2]);
    assert_eq!(s.nim_sum, 2);
    assert!(s.moves.contains(&welter::Move { from: 14, to: 0 }));
    let s = sprague(&[2, 3, 6, 8, 14]).unwrap();
    assert_eq!(s.nim_sum, 3);
    assert!(s.moves.contains(&welter::Move { from: 8, to: 5 }));
    assert!(!s.moves.iter().any(|m| m.from == 3), "13 -> 14 is blocked");
}

#[test]
fn every_method_agrees_with_the_value_on_small_positions() {
    // All positions on squares < 13: mating and triangle give the value; for 5 coins on
    // 0..15 Sprague's rule gives exactly the winning moves (Theorem 6.28).
    for mask in 0u32..(1 << 13) {
        let pos: Vec<u64> = (0..13).filter(|&s| mask >> s & 1 == 1).collect();
        let v = welter::value(&pos);
        assert_eq!(mating_value(&mating(&pos)), v, "{pos:?}");
        assert_eq!(
            *triangle(&pos).last().unwrap().last().unwrap_or(&0),
            v,
            "{pos:?}"
        );
    }
    let mut count = 0;
    for mask in 0u32..(1 << 16) {
        if mask.count_ones() != 5 {
            continue;
        }
        let pos: Vec<u64> = (0..16).filter(|&s| mask >> s & 1 == 1).collect();
        let s = sprague(&pos).unwrap();
        assert_eq!(s.nim_sum == 0, welter::value(&pos) == 0, "{pos:?}");
        assert_eq!(s.moves, welter::moves_to(&pos, 0), "{pos:?}");
        count += 1;
    }
    assert_eq!(count, 4368);
}

#[test]
fn triangle_windows_are_window_values() {
    let pos = [2u64, 9, 4, 31, 17, 8, 100, 6];
    let t = triangle(&pos);
    for r in 1..=pos.len() {
        for j in 0..=pos.len() - r {
            assert_eq!(t[r][j], welter::value(&pos[j..j + r]));
        }
    }
}
