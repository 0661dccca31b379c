#if canImport(UIKit) && !os(watchOS)
    import Foundation
    import Testing
    import UIKit

    @testable import Footprint

    /// Collects what capture hands to its sink.
    final class CollectingSink: CaptureSink, @unchecked Sendable {
        private let lock = NSLock()
        private var collected: [CapturedEvent] = []

        func record(_ event: CapturedEvent) {
            lock.lock()
            collected.append(event)
            lock.unlock()
        }

        var events: [CapturedEvent] {
            lock.lock()
            defer { lock.unlock() }
            return collected
        }

        /// The track events named `name`.
        func tracks(_ name: String) -> [CapturedEvent] {
            events.filter { $0.kind == .track(event: name) }
        }

        /// The screen events, by page name.
        var screens: [String] {
            events.compactMap {
                if case .screen(let name) = $0.kind { return name }
                return nil
            }
        }
    }

    /// A clock the test moves by hand.
    final class ManualClock: Clock, @unchecked Sendable {
        private let lock = NSLock()
        private var current = Timestamp(millisecondsSince1970: 1_795_981_800_000)

        func now() -> Timestamp {
            lock.lock()
            defer { lock.unlock() }
            return current
        }

        func advance(milliseconds: Int64) {
            lock.lock()
            current = current.adding(milliseconds: milliseconds)
            lock.unlock()
        }
    }

    /// Collects diagnostics.
    final class DiagnosticLog: @unchecked Sendable {
        private let lock = NSLock()
        private var collected: [UIKitDiagnostic] = []

        func append(_ diagnostic: UIKitDiagnostic) {
            lock.lock()
            collected.append(diagnostic)
            lock.unlock()
        }

        var diagnostics: [UIKitDiagnostic] {
            lock.lock()
            defer { lock.unlock() }
            return collected
        }
    }

    /// A window of phone size, shown without becoming key (test bundles without a host
    /// application cannot make a window key).
    @MainActor
    func showInWindow(_ controller: UIViewController) -> UIWindow {
        let window = UIWindow(frame: CGRect(x: 0, y: 0, width: 320, height: 480))
        window.rootViewController = controller
        window.isHidden = false
        window.layoutIfNeeded()
        return window
    }

    extension CapturedEvent {
        /// A string property.
        func string(_ key: String) -> String? {
            properties[key]?.stringValue
        }
    }
#endif
