import Footprint
import UIKit

/// A configured page ("Catalogue") with a list whose rows report exposure, skips and selection
/// by product SKU.
final class CatalogueViewController: UITableViewController {
    private let products = (1...200).map {
        Product(sku: "sku-\($0)", name: "Product \($0)", price: Double($0) * 1.5)
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        title = "Catalogue"
        tableView.register(UITableViewCell.self, forCellReuseIdentifier: "product")
        tableView.footprint.listID = "catalogue"
        let products = products
        tableView.footprint.listItems = { indexPath in
            let product = products[indexPath.row]
            return ListItemIdentity(id: product.sku, properties: ["price": .double(product.price)])
        }
        navigationItem.rightBarButtonItem = UIBarButtonItem(
            title: "Help", style: .plain, target: self, action: #selector(showHelp))
    }

    override func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int {
        products.count
    }

    override func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "product", for: indexPath)
        var content = cell.defaultContentConfiguration()
        content.text = products[indexPath.row].name
        content.secondaryText = String(format: "%.2f €", products[indexPath.row].price)
        cell.contentConfiguration = content
        return cell
    }

    override func tableView(_ tableView: UITableView, didSelectRowAt indexPath: IndexPath) {
        tableView.deselectRow(at: indexPath, animated: true)
        navigationController?.pushViewController(
            ArticleViewController(product: products[indexPath.row]), animated: true)
    }

    @objc private func showHelp() {
        let alert = UIAlertController(
            title: "Need help?", message: "Call us or write to us.", preferredStyle: .alert)
        alert.addAction(UIAlertAction(title: "Call", style: .default) { _ in print("calling") })
        alert.addAction(UIAlertAction(title: "Cancel", style: .cancel))
        present(alert, animated: true)
    }
}

struct Product {
    let sku: String
    let name: String
    let price: Double
}
