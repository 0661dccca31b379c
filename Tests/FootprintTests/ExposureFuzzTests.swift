import FootprintSimulation
import Foundation
import Testing

@testable import Footprint

/// Random lists, users and settings, checked against what must always hold.
struct ExposureFuzzTests {
    @Test(arguments: 0..<40)
    func randomSessionsKeepTheInvariants(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let axis: ListAxis = Bool.random(using: &random) ? .vertical : .horizontal
        let sections = (0..<Int.random(in: 1...4, using: &random)).map { _ in
            Int.random(in: 0...80, using: &random)
        }
        let columns = Int.random(in: 1...3, using: &random)
        let itemLength = CGFloat(Int.random(in: 40...400, using: &random))
        let items = SimulatedLayout.grid(
            axis: axis, itemsPerSection: sections, columns: columns,
            itemSize: axis == .vertical
                ? CGSize(width: 110, height: itemLength) : CGSize(width: itemLength, height: 110),
            spacing: 8, headerLength: 30, itemId: { "id-\($0.section)-\($0.row)" })
        let viewport = ListViewport(
            size: axis == .vertical ? CGSize(width: 375, height: 800) : CGSize(width: 800, height: 375),
            insets: ListInsets(top: CGFloat(Int.random(in: 0...1, using: &random)) * 90))
        let ratio = [1.0, 0.5, 0.1].randomElement(using: &random)!
        let dwell: Int64 = [0, 0, 500].randomElement(using: &random)!
        let configuration = ExposureConfiguration(minVisibleRatio: ratio, minDwellMilliseconds: dwell)
        var list = ExposureHarness(axis: axis, configuration: configuration)
        var simulator = ScrollSimulator(axis: axis, viewport: viewport, items: items, time: list.now)
        list.show(items, viewport: viewport, offset: simulator.offset)

        var restOffset = axis.coordinate(of: simulator.offset)
        for _ in 0..<12 {
            let gesture = Self.randomGesture(using: &random)
            for timed in simulator.perform(gesture) {
                let before = list.decisions.count
                list.now = timed.time
                list.decisions += list.tracker.handle(timed.callback, now: timed.time)
                let visible = viewport.visibleRect(at: list.tracker.offset)
                for decision in list.decisions[before...] {
                    switch decision {
                    case .exposure(let exposure):
                        #expect(exposure.item.visibleRatio(in: visible) >= ratio - 1e-9)
                        #expect(exposure.dwellMilliseconds >= dwell)
                    case .skip(let skip):
                        #expect(skip.items.allSatisfy { $0.visibleRatio(in: visible) == 0 })
                        #expect(skip.items.count == skip.skippedCount)
                        let change = axis.coordinate(of: list.tracker.offset) - restOffset
                        #expect(skip.direction == (change > 0 ? .forward : change < 0 ? .backward : .none))
                        #expect(skip.start <= skip.end)
                    }
                    for event in decision.capturedEvents(pageName: "P", listId: nil, flingId: "f") {
                        #expect(event.properties["$item_id"]?.stringValue?.isEmpty == false)
                        #expect(
                            JSONWriter.bytes(.object(event.properties)).count
                                < MessageLimits.maximumEventBytes)
                    }
                }
                if list.tracker.phase == .idle { restOffset = axis.coordinate(of: list.tracker.offset) }
            }
            list.send(.tick, after: dwell)
        }
        // One page view: no item is exposed twice.
        #expect(Set(list.exposedIds).count == list.exposedIds.count)
    }

    /// The skips equal a brute-force replay: every item that touched the viewport in any frame
    /// from release to rest, minus what was on screen at the rest points around the fling and
    /// what was wholly on screen when the finger lifted.
    @Test(arguments: 0..<16)
    func skipsEqualABruteForceReplayOfTheFrames(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let columns = Int.random(in: 1...3, using: &random)
        let items = SimulatedLayout.grid(
            itemsPerSection: (0..<3).map { _ in Int.random(in: 5...120, using: &random) }, columns: columns,
            itemSize: CGSize(width: 110, height: CGFloat(Int.random(in: 60...300, using: &random))),
            spacing: 6,
            headerLength: 24, itemId: { "id-\($0.section)-\($0.row)" })
        let viewport = ListViewport(
            size: CGSize(width: 375, height: 760), insets: ListInsets(top: 60, bottom: 40))
        var list = ExposureHarness()
        var simulator = ScrollSimulator(axis: .vertical, viewport: viewport, items: items, time: list.now)
        list.show(items, viewport: viewport, offset: simulator.offset)

        // Every column fits across the 375-point width, so touching is overlapping vertically.
        let spans = items.map { (top: $0.frame.minY, bottom: $0.frame.maxY, id: $0.wireItemId) }
        func touching(_ offset: CGPoint) -> Set<String> {
            let rect = viewport.visibleRect(at: offset)
            var ids: Set<String> = []
            for span in spans where span.bottom > rect.minY && span.top < rect.maxY { ids.insert(span.id) }
            return ids
        }
        func whollyVisible(_ offset: CGPoint) -> Set<String> {
            let rect = viewport.visibleRect(at: offset)
            var ids: Set<String> = []
            for span in spans where span.top >= rect.minY && span.bottom <= rect.maxY { ids.insert(span.id) }
            return ids
        }
        var previousRest = touching(simulator.offset)
        for _ in 0..<8 {
            let gesture = Self.randomGesture(using: &random)
            var flying = false
            var swept: Set<String> = []
            var seenAtRelease: Set<String> = []
            let before = list.skips.count
            for timed in simulator.perform(gesture) {
                switch timed.callback {
                case .didEndDragging(true):
                    flying = true
                    swept.formUnion(touching(list.tracker.offset))
                    seenAtRelease.formUnion(whollyVisible(list.tracker.offset))
                case .didScroll(let offset) where flying:
                    swept.formUnion(touching(offset))
                default:
                    break
                }
                list.now = timed.time
                list.decisions += list.tracker.handle(timed.callback, now: timed.time)
            }
            let rest = touching(simulator.offset)
            let expected = swept.subtracting(previousRest).subtracting(rest).subtracting(seenAtRelease)
            let found = list.skips[before...].flatMap { $0.items.map(\.wireItemId) }
            #expect(Set(found) == expected)
            #expect(found.count == expected.count)
            previousRest = rest
        }
    }

    static func randomGesture(using random: inout SeededRandom) -> ScrollGesture {
        let sign: CGFloat = Bool.random(using: &random) ? 1 : -1
        switch Int.random(in: 0...5, using: &random) {
        case 0:
            return .slowDrag(distance: sign * CGFloat.random(in: 10...900, using: &random), milliseconds: 500)
        case 1: return .fling(velocity: sign * CGFloat.random(in: 300...15_000, using: &random))
        case 2:
            return .backAndForth(
                forward: CGFloat.random(in: 50...900, using: &random),
                back: -CGFloat.random(in: 50...900, using: &random),
                releaseVelocity: sign * CGFloat.random(in: 0...9000, using: &random))
        case 3: return .pageFlip(pages: Int(sign))
        case 4: return .animatedScroll(to: CGFloat.random(in: -200...20_000, using: &random))
        default: return .pause(milliseconds: Int64.random(in: 0...2000, using: &random))
        }
    }
}
