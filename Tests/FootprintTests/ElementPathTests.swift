import Testing

@testable import Footprint

/// Element paths, as article 001 writes them.
struct ElementPathTests {
    /// The chain of the article's example as UIKit really has it: the window and scene sit
    /// between the controller and the application, and the article writes them as `...`.
    let articleChain: [ResponderDescription] = [
        .view("UIButton", 0), .view("UIView", 0), .controller("ViewController"), .view("UIWindow", 0),
        .other("UIWindowScene"), .other("UIApplication"), .other("AppDelegate"),
    ]

    /// Writes the responders between the controller and the application as the article's `...`.
    func elided(_ path: String) -> String {
        let segments = path.split(separator: "#", omittingEmptySubsequences: false).map(String.init)
        guard let controller = segments.firstIndex(of: "ViewController"),
            let application = segments.firstIndex(of: "UIApplication"), controller + 1 < application
        else { return path }
        return (segments[...controller] + ["..."] + segments[application...]).joined(separator: "#")
    }

    @Test func articleExampleWithoutAttributes() {
        let element = ElementDescription(chain: articleChain, kind: .other)
        let path = ElementPath(element: element, action: Chains.tap())
        #expect(
            elided(path.exact)
                == "#buttonClick:#UIButton#UIButton[0]#UIView[0]#ViewController#...#UIApplication#AppDelegate"
        )
        #expect(
            path.exact
                == "#buttonClick:#UIButton#UIButton[0]#UIView[0]#ViewController#UIWindow[0]#UIWindowScene#UIApplication#AppDelegate"
        )
        #expect(path.similar == path.exact)
        #expect(path.position == nil)
    }

    @Test func articleExampleWithButtonAttributes() {
        let element = ElementDescription(
            chain: articleChain, kind: .button,
            attributes: ElementAttributes(title: "Button", state: 1, isEnabled: true, isSelected: false))
        let path = ElementPath(element: element, action: Chains.tap())
        #expect(
            elided(path.exact)
                == "#buttonClick:#UIButton#UIButton[0]#UIView[0]#ViewController#...#UIApplication#AppDelegate#currentTitle=Button#state=1#enabled=1#selected=0"
        )
    }

    @Test func shortChainWritesEveryResponder() {
        let path = ElementPath(element: Chains.button(), action: Chains.tap())
        #expect(
            path.exact
                == "#buttonClick:#UIButton#UIButton[0]#UIView[0]#ViewController#UIApplication#AppDelegate#currentTitle=Button#state=0#enabled=1#selected=0"
        )
    }

    static let attributeCases: [(ElementKind, ElementAttributes, String)] = [
        (.toggle, ElementAttributes(isOn: true), "#on=1"),
        (.toggle, ElementAttributes(isOn: false), "#on=0"),
        (.segmentedControl, ElementAttributes(selectedSegmentIndex: 2), "#selectedSegmentIndex=2"),
        (.stepper, ElementAttributes(value: 3), "#value=3"),
        (.stepper, ElementAttributes(value: 2.5), "#value=2.5"),
        (
            .button, ElementAttributes(title: "Log in", state: 0, isEnabled: true, isSelected: false),
            "#currentTitle=Log in#state=0#enabled=1#selected=0"
        ),
        (
            .button, ElementAttributes(title: "Verify identity", state: 4, isEnabled: true, isSelected: true),
            "#currentTitle=Verify identity#state=4#enabled=1#selected=1"
        ),
        (.button, ElementAttributes(state: 2, isEnabled: false), "#state=2#enabled=0"),
        (.slider, ElementAttributes(value: 0.37), ""),
        (.textInput, ElementAttributes(title: "typed text"), ""),
        (.other, ElementAttributes(title: "Label", isEnabled: true), ""),
    ]

    @Test(arguments: attributeCases)
    func attributesFollowTheKind(kind: ElementKind, attributes: ElementAttributes, suffix: String) {
        let element = ElementDescription(
            chain: [.view("Control", 0), .controller("ViewController")], kind: kind, attributes: attributes)
        let path = ElementPath(element: element, action: Chains.tap("changed:", sender: "Control"))
        #expect(path.exact == "#changed:#Control#Control[0]#ViewController" + suffix)
    }

    @Test func theSameButtonInTwoStatesHasTwoPaths() {
        var loggedOut = Chains.button(title: "Log in")
        var needsVerification = Chains.button(title: "Verify identity")
        loggedOut.attributes.state = 0
        needsVerification.attributes.state = 0
        #expect(
            ElementPath(element: loggedOut, action: Chains.tap()).exact
                != ElementPath(element: needsVerification, action: Chains.tap()).exact)
    }

    @Test func titlesAreRedactedAndEscaped() {
        let mail = ElementPath(element: Chains.button(title: "Mail ann@example.com"), action: Chains.tap())
        #expect(mail.exact.contains("#currentTitle=Mail [email]#state=0"))
        let hash = ElementPath(element: Chains.button(title: "Tag #1 at 50%"), action: Chains.tap())
        #expect(hash.exact.contains("#currentTitle=Tag %231 at 50%25#state=0"))
        var secure = Chains.button(title: "secret")
        secure.isSecureTextEntry = true
        #expect(!ElementPath(element: secure, action: Chains.tap()).exact.contains("secret"))
    }

    @Test func cellsWriteTheirPositionAndAWildcardedSimilarPath() {
        let third = ElementPath(element: Chains.cell(row: 3), action: Chains.tableSelection)
        let fourth = ElementPath(element: Chains.cell(row: 4), action: Chains.tableSelection)
        #expect(
            third.exact
                == "#tableView:didSelectRowAtIndexPath:#UITableView#ProductCell[0:3]#UITableView[0]#UIView[0]#HomeViewController#UIApplication#AppDelegate"
        )
        #expect(
            third.similar
                == "#tableView:didSelectRowAtIndexPath:#UITableView#ProductCell[0:*]#UITableView[0]#UIView[0]#HomeViewController#UIApplication#AppDelegate"
        )
        #expect(third.exact != fourth.exact)
        #expect(third.similar == fourth.similar)
        #expect(third.position == CellIndexPath(section: 0, row: 3))
        #expect(
            ElementPath(element: Chains.cell(section: 1, row: 3), action: Chains.tableSelection).similar
                != third.similar)
    }

    @Test func aButtonInsideACellTakesTheCellsPosition() {
        let element = ElementDescription(
            chain: [
                .view("UIButton", 1), .view("UIView", 0),
                ResponderDescription("CartCell", cellIndexPath: CellIndexPath(section: 2, row: 7)),
                .view("UITableView", 0), .controller("CartViewController"),
            ],
            kind: .button, attributes: ElementAttributes(title: "Remove"))
        let path = ElementPath(element: element, action: Chains.tap("remove:"))
        #expect(path.position == CellIndexPath(section: 2, row: 7))
        #expect(path.exact.contains("#UIView[0]#CartCell[2:7]#UITableView[0]#"))
        #expect(path.similar.contains("#UIView[0]#CartCell[2:*]#UITableView[0]#"))
        #expect(path.position?.description == "2:7")
    }

    @Test func controllersAndNonViewsAreNeverIndexed() {
        let element = ElementDescription(
            chain: [
                .view("UIButton", 0),
                ResponderDescription("ChildViewController", role: .viewController, siblingIndex: 3),
                ResponderDescription("UIWindowScene", role: .other, siblingIndex: 1),
            ],
            kind: .other)
        #expect(
            ElementPath(element: element, action: Chains.tap()).exact
                == "#buttonClick:#UIButton#UIButton[0]#ChildViewController#UIWindowScene")
    }

    @Test func viewsWithoutSuperviewHaveNoIndex() {
        let element = ElementDescription(chain: [ResponderDescription("UIWindow")], kind: .other)
        #expect(
            ElementPath(element: element, action: Chains.tap("shake:", sender: "UIWindow")).exact
                == "#shake:#UIWindow#UIWindow")
    }
}

/// Indexes among siblings of the same type.
struct SiblingIndexTests {
    @Test func countsOnlyTheSameType() {
        let siblings = ["UILabel", "UIButton", "UIImageView", "UIButton", "UILabel", "UIButton"]
        #expect(SiblingIndex.index(at: 1, in: siblings) == 0)
        #expect(SiblingIndex.index(at: 3, in: siblings) == 1)
        #expect(SiblingIndex.index(at: 5, in: siblings) == 2)
        #expect(SiblingIndex.index(at: 4, in: siblings) == 1)
        #expect(SiblingIndex.index(at: 2, in: siblings) == 0)
    }

    @Test func subclassesAreOtherTypes() {
        #expect(SiblingIndex.index(at: 1, in: ["UIButton", "BuyButton"]) == 0)
        #expect(SiblingIndex.index(at: 2, in: ["UIButton", "BuyButton", "UIButton"]) == 1)
    }

    @Test func onlyChildAndOutOfRange() {
        #expect(SiblingIndex.index(at: 0, in: ["UIButton"]) == 0)
        #expect(SiblingIndex.index(at: 1, in: ["UIButton"]) == nil)
        #expect(SiblingIndex.index(at: -1, in: ["UIButton"]) == nil)
        #expect(SiblingIndex.index(at: 0, in: []) == nil)
    }

    @Test func addingAnotherTypeBeforeKeepsTheIndex() {
        let before = ["UIButton", "UIButton"]
        let after = ["UILabel", "UIButton", "UIButton"]
        #expect(SiblingIndex.index(at: 1, in: before) == SiblingIndex.index(at: 2, in: after))
    }

    @Test func randomSiblingListsNumberEachTypeFromZero() {
        var generator = SystemRandomNumberGenerator()
        let types = ["A", "B", "C"]
        for _ in 0..<200 {
            let siblings = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                types.randomElement(using: &generator)!
            }
            var seen: [String: Int] = [:]
            for (position, type) in siblings.enumerated() {
                #expect(SiblingIndex.index(at: position, in: siblings) == seen[type, default: 0])
                seen[type, default: 0] += 1
            }
        }
    }
}
