import './ui/style.css';
