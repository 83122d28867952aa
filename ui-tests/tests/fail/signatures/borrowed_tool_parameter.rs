use agents_kt::prelude::*;

/// Counts the words of a text.
#[tool]
async fn count_words(text: &str, stop_words: &[String]) -> usize {
    text.split_whitespace()
        .filter(|word| !stop_words.iter().any(|stop| stop == word))
        .count()
}

fn main() {
    let _ = Agent::<String, String>::builder("a").tool(CountWords);
}
