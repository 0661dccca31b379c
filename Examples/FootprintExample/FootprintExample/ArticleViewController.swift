import Footprint
import UIKit

/// A configured page ("Product") whose `goShare` is a purpose method: the plan's `share` event is
/// raised however it is reached (the button, or the long press on the picture).
final class ArticleViewController: UIViewController {
    /// Read by the plan's key path `target.productSKU`.
    @objc let productSKU: String
    private let product: Product

    init(product: Product) {
        self.product = product
        self.productSKU = product.sku
        super.init(nibName: nil, bundle: nil)
    }

    required init?(coder: NSCoder) { nil }

    override func viewDidLoad() {
        super.viewDidLoad()
        title = product.name
        view.backgroundColor = .systemBackground

        let picture = UIView()
        picture.backgroundColor = .secondarySystemBackground
        picture.addGestureRecognizer(
            UILongPressGestureRecognizer(target: self, action: #selector(pictureHeld)))

        let share = UIButton(type: .system)
        share.setTitle("Share", for: .normal)
        share.addTarget(self, action: #selector(shareTapped), for: .touchUpInside)
        share.footprint.properties = ["placement": "below-picture"]

        let favourite = UISwitch()
        favourite.addTarget(self, action: #selector(favouriteChanged), for: .valueChanged)

        let stack = UIStackView(arrangedSubviews: [picture, share, favourite])
        stack.axis = .vertical
        stack.spacing = 16
        stack.translatesAutoresizingMaskIntoConstraints = false
        view.addSubview(stack)
        NSLayoutConstraint.activate([
            stack.leadingAnchor.constraint(equalTo: view.layoutMarginsGuide.leadingAnchor),
            stack.trailingAnchor.constraint(equalTo: view.layoutMarginsGuide.trailingAnchor),
            stack.topAnchor.constraint(equalTo: view.safeAreaLayoutGuide.topAnchor, constant: 16),
            picture.heightAnchor.constraint(equalToConstant: 200),
        ])
    }

    @objc private func shareTapped() { goShare() }

    @objc private func pictureHeld(_ recognizer: UILongPressGestureRecognizer) {
        if recognizer.state == .began { goShare() }
    }

    @objc private func favouriteChanged(_ sender: UISwitch) {}

    /// The purpose method the plan names (`ArticleViewController.goShare`): `@objc dynamic` so
    /// Footprint can hook it.
    @objc dynamic func goShare() {
        let sheet = UIActivityViewController(activityItems: [product.name], applicationActivities: nil)
        present(sheet, animated: true)
    }
}
