func f() -> Int {
    // #endregion
    return 1
}
