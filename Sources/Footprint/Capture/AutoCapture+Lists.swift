extension AutoCapture {
    /// Whether a list's exposure is measured: not opted out (on the list or around it), not in
    /// system UI (``ListRule/isInSystemUI(_:)``), and marked by the app (a list id or item
    /// identities) unless the plan measures every list (``TrackingPlan/exposureLists``).
    /// - Parameters:
    ///   - chain: the list's responder chain, the list first.
    ///   - isMarked: whether the app gave the list an id or item identities.
    public func measuresExposure(ofList chain: [ResponderDescription], isMarked: Bool) -> Bool {
        guard !ignores(chain: chain), !ListRule.isInSystemUI(chain) else { return false }
        return isMarked || plans.current.plan.exposureLists == .all
    }
}
