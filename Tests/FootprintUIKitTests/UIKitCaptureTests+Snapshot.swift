#if canImport(UIKit) && !os(watchOS)
    import Foundation
    import Testing
    import UIKit

    @testable import Footprint

    extension UIKitCaptureTests {
        /// A screen with a button, a secure text field and an ignored view.
        func snapshotScreen() -> (PlainViewController, UIButton, UITextField, UIView, UIWindow) {
            let controller = PlainViewController()
            controller.view.backgroundColor = .white
            let button = UIButton(type: .system)
            button.setTitle("Pay", for: .normal)
            button.frame = CGRect(x: 20, y: 40, width: 120, height: 44)
            button.addTarget(controller, action: #selector(PlainViewController.pay(_:)), for: .touchUpInside)
            let field = UITextField(frame: CGRect(x: 20, y: 100, width: 200, height: 40))
            field.isSecureTextEntry = true
            field.text = "hunter2"
            field.backgroundColor = .white
            let panel = UIView(frame: CGRect(x: 20, y: 200, width: 200, height: 100))
            panel.backgroundColor = .red
            panel.footprint.isIgnored = true
            controller.view.addSubview(button)
            controller.view.addSubview(field)
            controller.view.addSubview(panel)
            let window = showInWindow(controller)
            return (controller, button, field, panel, window)
        }

        @Test func aSnapshotsPathsAreThoseOfTheTapsAndItsFramesAreInWindowPoints() throws {
            let adapter = install(plan: TrackingPlan())
            let (controller, button, _, _, window) = snapshotScreen()
            let content = ScreenDescriber.content(of: window, adapter: adapter)
            let element = try #require(content.elements.first { $0.kind == "button" })
            #expect(element.frame == ScreenSnapshot.Frame(x: 20, y: 40, width: 120, height: 44))
            #expect(element.text == "Pay")
            ControlActionHooks.record(
                action: #selector(PlainViewController.pay(_:)), target: controller, sender: button, event: nil
            )
            let tap = try #require(sink.tracks(CapturedEventName.elementClick).last)
            #expect(tap.string("$element_path") == element.path)
            #expect(tap.string("$element_similar_path") == element.similarPath)
            #expect(content.screen.width == 320 && content.screen.height == 480)
        }

        @Test func theScreenshotHasPrivateViewsPaintedOverAndStaysUnderItsCap() throws {
            let adapter = install(plan: TrackingPlan())
            let (_, _, field, panel, window) = snapshotScreen()
            let content = ScreenDescriber.content(of: window, adapter: adapter)
            let image = try #require(content.image)
            #expect(image.format == .jpeg && image.format.hasSignature(image.data))
            #expect(image.data.count <= adapter.configuration.screenshotSizing.maximumBytes)
            let decoded = try #require(UIImage(data: Data(image.data))?.cgImage)
            let scale = Double(decoded.width) / 320
            for view in [field, panel] {
                let center = view.convert(CGPoint(x: view.bounds.midX, y: view.bounds.midY), to: nil)
                let (red, green, blue) = try pixel(
                    of: decoded, x: Double(center.x) * scale, y: Double(center.y) * scale)
                // Painted dark grey (UIColor.darkGray is one third white): not the white field, not the red panel.
                #expect(abs(red - 0.333) < 0.1 && abs(green - 0.333) < 0.1 && abs(blue - 0.333) < 0.1)
            }
            #expect(!content.elements.contains { $0.text?.contains("hunter2") == true })
        }

        /// The colour of one pixel (`x`, `y` from the top left, in pixels), components 0…1.
        private func pixel(of image: CGImage, x: Double, y: Double) throws -> (Double, Double, Double) {
            var bytes = [UInt8](repeating: 0, count: 4)
            let drawn = bytes.withUnsafeMutableBytes { buffer -> Bool in
                guard
                    let context = CGContext(
                        data: buffer.baseAddress, width: 1, height: 1, bitsPerComponent: 8, bytesPerRow: 4,
                        space: CGColorSpaceCreateDeviceRGB(),
                        bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue)
                else { return false }
                // Bitmap contexts count rows from the bottom: move the wanted pixel to (0, 0).
                let height = Double(image.height)
                context.draw(
                    image, in: CGRect(x: -x, y: y - height + 1, width: Double(image.width), height: height))
                return true
            }
            try #require(drawn)
            return (Double(bytes[0]) / 255, Double(bytes[1]) / 255, Double(bytes[2]) / 255)
        }
    }
#endif
