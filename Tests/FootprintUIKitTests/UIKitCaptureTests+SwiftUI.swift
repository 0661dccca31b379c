#if canImport(UIKit) && canImport(SwiftUI) && !os(watchOS)
    import Foundation
    import SwiftUI
    import Testing
    import UIKit

    @testable import Footprint

    extension UIKitCaptureTests {
        /// A SwiftUI list in a hosting controller: its rows report their frames through the
        /// environment, and the rows wholly on screen are exposed, with the list's id and each
        /// row's position; the rows below the screen are not.
        @Test func swiftUIRowsOnScreenAreExposedWhenTheListAppears() async throws {
            install()
            let controller = UIHostingController(rootView: ExposureTestList(rows: 60))
            let window = showInWindow(controller)
            defer { window.isHidden = true }
            // A hang guard only: the first layout needs a few turns of the run loop.
            for _ in 0..<50 where !swiftUIExposed("row-3") {
                try await Task.sleep(nanoseconds: 100_000_000)
            }

            let exposures = sink.tracks(ListExposureEvent.exposureEventName)
            let ids = Set(exposures.compactMap { $0.string("$item_id") })
            // 480 points of 44-point rows: rows 0 to 3 are on screen whatever the insets, row 20
            // is far below it.
            #expect(ids.isSuperset(of: Set((0...3).map { "row-\($0)" })))
            #expect(!ids.contains("row-20"))
            #expect(exposures.allSatisfy { $0.string("$list_id") == "promotions" })
            #expect(
                exposures.contains {
                    $0.string("$item_position") == "0:2" && $0.string("$item_id") == "row-2"
                })
        }

        private func swiftUIExposed(_ id: String) -> Bool {
            sink.tracks(ListExposureEvent.exposureEventName).contains { $0.string("$item_id") == id }
        }
    }

    /// Sixty 44-point rows in a lazy stack, watched for exposure.
    struct ExposureTestList: View {
        let rows: Int

        var body: some View {
            ScrollView {
                LazyVStack(spacing: 0) {
                    ForEach(0..<rows, id: \.self) { row in
                        Text("Row \(row)")
                            .frame(maxWidth: .infinity, minHeight: 44, maxHeight: 44)
                            .footprintExposure(
                                id: "row-\(row)", position: ListIndexPath(section: 0, row: row))
                    }
                }
            }
            .footprintExposureList("promotions")
        }
    }
#endif
